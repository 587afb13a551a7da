//! Interop with the Python grpcio stack: a venv under target/ with grpcio,
//! grpcio-tools, grpcio-health-checking and grpcio-reflection (created once,
//! then reused), stubs generated from our .proto at test time, and
//! tests/python/interop.py run against an in-process server (Solve,
//! SuggestMove, health, reflection and whole Play games with rejected moves).

mod common;

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
/// they are not there yet.
fn venv_python() -> PathBuf {
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
        install().unwrap_or_else(|e| panic!("cannot set up the Python venv: {e}"));
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
