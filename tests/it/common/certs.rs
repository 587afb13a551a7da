//! Certificates made in the tests (rcgen, ECDSA P-256): a CA and the
//! server and client certificates it signs, as PEM, written to files.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

/// A certificate authority.
pub struct Ca {
    issuer: Issuer<'static, KeyPair>,
    /// Its certificate, PEM.
    pub pem: String,
}

/// A certificate and its key, PEM.
pub struct Leaf {
    pub cert: String,
    pub key: String,
}

fn named(params: &mut CertificateParams, name: &str) {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, name);
    params.distinguished_name = dn;
}

impl Ca {
    /// A new CA called `name`.
    pub fn new(name: &str) -> Ca {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        named(&mut params, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let cert = params.self_signed(&key).unwrap();
        Ca {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A certificate for `names` (DNS names or IP addresses), adjusted by
    /// `f` (validity, …).
    pub fn leaf_with(&self, names: &[&str], f: impl FnOnce(&mut CertificateParams)) -> Leaf {
        let key = KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        named(&mut params, "stonegame test");
        f(&mut params);
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Leaf {
            cert: cert.pem(),
            key: key.serialize_pem(),
        }
    }

    /// A server certificate for 127.0.0.1 and localhost.
    pub fn server(&self) -> Leaf {
        self.leaf_with(&["127.0.0.1", "localhost"], |_| {})
    }

    /// A client certificate.
    pub fn client(&self) -> Leaf {
        self.leaf_with(&["client.test"], |_| {})
    }
}

/// Writes `text` to `dir/name` atomically (a rename, as a Secret update
/// swaps files) and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    path
}
