//! Interop with the Python grpcio stack: a venv under target/ with grpcio,
//! grpcio-tools, grpcio-health-checking and grpcio-reflection (created once,
//! then reused), stubs generated from our .proto at test time, and
//! tests/python/interop.py run against an in-process server (Solve,
//! SuggestMove, health, reflection and whole Play games with rejected moves).

use crate::common::{self, certs};

use std::path::{Path, PathBuf};
use std::process::Command;

const PACKAGES: &[&str] = &[
    "grpcio",
    "grpcio-tools",
    "grpcio-health-checking",
    "grpcio-reflection",
];

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The venv's python, creating the venv and installing the packages when
/// they are not there yet. Once per test process: the tests of this file
/// run in parallel and would otherwise install into the same venv at once.
fn venv_python() -> PathBuf {
    static PYTHON: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PYTHON.get_or_init(make_venv).clone()
}

fn make_venv() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("interop-venv");
    let python = venv.join("bin").join("python");
    let ready = || {
        Command::new(&python)
            .args([
                "-c",
                "import grpc, grpc_tools, grpc_health.v1, grpc_reflection.v1alpha",
            ])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if ready() {
        return python;
    }
    crate::common::require_python3(
        "grpcio and its tools are pip-installed from PyPI into a venv under target/",
    );
    let install = || {
        if !python.exists() {
            run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        }
        let pip = [
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ];
        run(Command::new(&python).args(pip).args(PACKAGES))
    };
    if let Err(first) = install() {
        // A venv left broken (interrupted install, newer python3): start over.
        eprintln!("recreating the venv after: {first}");
        let _ = std::fs::remove_dir_all(&venv);
        install().unwrap_or_else(|e| {
            panic!(
                "cannot set up the Python venv from PyPI (does this machine reach pypi.org?): {e}"
            )
        });
    }
    assert!(
        ready(),
        "the Python packages do not import after installing"
    );
    python
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_grpcio_client_interoperates() {
    let python = tokio::task::spawn_blocking(venv_python).await.unwrap();
    let server = common::server(|_| {}).await;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out_dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(python);
    cmd.arg(root.join("tests/python/interop.py"))
        .arg(server.addr.port().to_string())
        .arg(root.join("proto"))
        .arg(out_dir.path());
    let result = tokio::task::spawn_blocking(move || {
        let out = cmd.output().expect("python runs");
        (
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    })
    .await
    .unwrap();
    let (status, stdout, stderr) = result;
    assert!(
        status.success(),
        "interop.py failed ({status}):\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("interop OK"), "{stdout}");
    println!("{stdout}");
}

/// The grpcio client over mTLS with a bearer token: certificates made here
/// (rcgen), `grpc.secure_channel` with `ssl_channel_credentials(root, key,
/// chain)`; Solve and SuggestMove checked against interop.py's reference,
/// and calls without (or with a wrong) token refused UNAUTHENTICATED.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_grpcio_client_over_mtls_with_a_token() {
    let python = tokio::task::spawn_blocking(venv_python).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server_ca = certs::Ca::new("interop server CA");
    let client_ca = certs::Ca::new("interop client CA");
    let leaf = server_ca.server();
    let client = client_ca.client();
    let cert = certs::write(dir.path(), "tls.crt", &leaf.cert);
    let key = certs::write(dir.path(), "tls.key", &leaf.key);
    let client_ca_file = certs::write(dir.path(), "client-ca.crt", &client_ca.pem);
    let ca = certs::write(dir.path(), "ca.crt", &server_ca.pem);
    let client_cert = certs::write(dir.path(), "client.crt", &client.cert);
    let client_key = certs::write(dir.path(), "client.key", &client.key);
    let token = "interop-token-0123456789abcdef";
    let tokens = certs::write(dir.path(), "tokens", &format!("{token}\n"));
    let server = common::server(|c| {
        c.tls.cert_file = Some(cert.clone());
        c.tls.key_file = Some(key.clone());
        c.tls.client_ca_file = Some(client_ca_file.clone());
        c.auth.tokens_file = Some(tokens.clone());
    })
    .await;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out_dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(python);
    cmd.arg(root.join("tests/python/interop_tls.py"))
        .arg(server.addr.port().to_string())
        .arg(root.join("proto"))
        .arg(out_dir.path())
        .args([&ca, &client_cert, &client_key])
        .arg(token);
    let (status, stdout, stderr) = tokio::task::spawn_blocking(move || {
        let out = cmd.output().expect("python runs");
        (
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    })
    .await
    .unwrap();
    assert!(
        status.success(),
        "interop_tls.py failed ({status}):\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("interop tls OK"), "{stdout}");
    println!("{stdout}");
}
