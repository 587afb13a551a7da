//! The minimum supported Rust version: `rust-version` in Cargo.toml is at
//! least what every locked dependency declares, so the MSRV the README
//! states is not a promise the dependency tree already broke. (The
//! standard library APIs the code itself uses are held to it by clippy's
//! `incompatible_msrv` lint, which `.ci/run` denies.)

use std::process::Command;

/// `1.88` or `1.88.0` as comparable numbers.
fn version(text: &str) -> Vec<u64> {
    let mut v: Vec<u64> = text
        .split('.')
        .map(|p| p.parse().unwrap_or_else(|_| panic!("a version: {text}")))
        .collect();
    v.resize(3, 0);
    v
}

#[test]
fn no_locked_dependency_needs_a_newer_rust_than_the_declared_msrv() {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--filter-platform",
            "x86_64-unknown-linux-gnu",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata --locked failed (it reads crates.io's index when a \
         dependency was never downloaded): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let ours = packages
        .iter()
        .find(|p| p["name"] == "stonegame")
        .expect("this package");
    let msrv = version(ours["rust_version"].as_str().expect("rust-version is set"));
    let mut newer = Vec::new();
    for p in packages {
        if let Some(needs) = p["rust_version"].as_str()
            && version(needs) > msrv
        {
            newer.push(format!("{} {} needs {needs}", p["name"], p["version"]));
        }
    }
    println!("MSRV {msrv:?}, {} packages", packages.len());
    assert!(
        newer.is_empty(),
        "rust-version {msrv:?} is older than what these need: {newer:?}"
    );
}
