//! The binary run as the Kubernetes pod runs it (deploy/k8s/base): copied
//! with the ConfigMap's TOML into a read-only directory (as the image and
//! the volume hold them), started with the Deployment's arguments (that
//! TOML as `--config`), only the environment the Deployment sets (plus the
//! listen address on a free loopback port, through the same `STONEGAME_*`
//! mapping), user 65532 when the test runs as root, and an empty read-only
//! working and home directory: the process must need no writable
//! directory. It must answer health (SERVING for "" and for
//! `stonegame.v1.StoneGame`), solve one case right, and exit 0 within
//! `shutdown_grace` of SIGTERM.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use stonegame::client::{Client, solve_case};
use stonegame::core::Variant;
use stonegame::service::config::{Config, Overrides};
use yaml_rust2::{Yaml, YamlLoader};

/// Where the Deployment mounts the ConfigMap's file.
const MOUNTED_CONFIG: &str = "/etc/stonegame/stonegame.toml";
/// The pod's user and group.
const UID: u32 = 65532;
/// grpc.health.v1 SERVING.
const SERVING: i32 = 1;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The source of the ConfigMap the base generates.
fn config_file() -> PathBuf {
    repo().join("deploy/k8s/base/stonegame.toml")
}

/// The base Deployment's container.
fn container() -> Yaml {
    let path = repo().join("deploy/k8s/base/deployment.yaml");
    let text = std::fs::read_to_string(&path).expect("deployment.yaml");
    let docs = YamlLoader::load_from_str(&text).expect("YAML");
    let deployment = docs
        .into_iter()
        .find(|d| d["kind"].as_str() == Some("Deployment"))
        .expect("a Deployment");
    deployment["spec"]["template"]["spec"]["containers"][0].clone()
}

/// The Deployment's arguments, with the mounted config path replaced by
/// `config` (the ConfigMap's file as staged).
fn pod_args(c: &Yaml, config: &Path) -> Vec<String> {
    let args: Vec<String> = c["args"]
        .as_vec()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("string args").to_string())
        .collect();
    assert!(
        args.iter().any(|a| a == MOUNTED_CONFIG),
        "the Deployment passes --config {MOUNTED_CONFIG}: {args:?}"
    );
    args.into_iter()
        .map(|a| {
            if a == MOUNTED_CONFIG {
                config.display().to_string()
            } else {
                a
            }
        })
        .collect()
}

/// The environment the Deployment sets: literal values, and a stand-in of
/// 64 characters for a value from a Secret (`secretKeyRef`: the Play token
/// key; the Secret is made outside the render in prod).
fn pod_env(c: &Yaml) -> HashMap<String, String> {
    c["env"]
        .as_vec()
        .map(|env| {
            env.iter()
                .map(|e| {
                    let name = e["name"].as_str().expect("env name").to_string();
                    if !e["valueFrom"]["secretKeyRef"].is_badvalue() {
                        return (name, "s".repeat(64));
                    }
                    let value = e["value"]
                        .as_str()
                        .unwrap_or_else(|| panic!("env {name}: only literal values are modelled"))
                        .to_string();
                    (name, value)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A temporary directory made read-only (mode 0555) once filled; writable
/// again when dropped, so that it can be removed.
struct ReadOnlyDir(tempfile::TempDir);

impl ReadOnlyDir {
    fn new(fill: impl FnOnce(&Path)) -> ReadOnlyDir {
        let dir = tempfile::tempdir().expect("temp dir");
        fill(dir.path());
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
        ReadOnlyDir(dir)
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for ReadOnlyDir {
    fn drop(&mut self) {
        let _ = std::fs::set_permissions(self.0.path(), std::fs::Permissions::from_mode(0o755));
    }
}

/// An empty directory nobody but root can write.
fn read_only_dir() -> ReadOnlyDir {
    ReadOnlyDir::new(|_| {})
}

fn is_root() -> bool {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() == 0 }
}

/// The binary and the ConfigMap's file copied where the pod's user can
/// reach them wherever the checkout is (as the image and the volume hold
/// them): `stonegame` and `stonegame.toml`, read-only.
fn stage() -> ReadOnlyDir {
    ReadOnlyDir::new(|dir| {
        let bin = dir.join("stonegame");
        std::fs::copy(env!("CARGO_BIN_EXE_stonegame"), &bin).expect("copy the binary");
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o555)).unwrap();
        let toml = dir.join("stonegame.toml");
        std::fs::copy(config_file(), &toml).expect("copy the ConfigMap's file");
        std::fs::set_permissions(&toml, std::fs::Permissions::from_mode(0o444)).unwrap();
    })
}

/// Starts the binary as the pod does, with `extra` environment.
fn start_pod(cwd: &Path, extra: &[(&str, &str)]) -> (Child, ReadOnlyDir) {
    // Copying the binary and spawning, one test at a time: a child forked by
    // another test while the copy is open for writing would hold it open
    // and make exec fail with ETXTBSY.
    static SPAWN: Mutex<()> = Mutex::new(());
    let _one_at_a_time = SPAWN.lock().unwrap_or_else(|e| e.into_inner());
    let c = container();
    let staged = stage();
    let mut cmd = Command::new(staged.path().join("stonegame"));
    cmd.args(pod_args(&c, &staged.path().join("stonegame.toml")))
        .env_clear()
        .envs(pod_env(&c))
        .env("HOME", cwd)
        .envs(extra.iter().copied())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if is_root() {
        // As the pod's securityContext runs it; root could write anywhere.
        // std drops the supplementary groups too (setgroups(0)).
        cmd.uid(UID).gid(UID);
    }
    // Other tests of this binary fork children too: one forked while the
    // copy was open for writing holds it until it execs (ETXTBSY for a
    // moment). Try again while that lasts.
    let mut tries = 0;
    let child = loop {
        match cmd.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 200 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            spawned => break spawned.expect("the binary starts"),
        }
    };
    (child, staged)
}

/// Stderr lines of `child`, read on a thread.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits for `child` to exit, at most `limit`.
fn wait_for_exit(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_binary_serves_as_the_pod_runs_it_and_exits_cleanly_on_sigterm() {
    let grace_ms = Config::load(
        Some(&config_file()),
        Some(HashMap::new()),
        &Overrides::default(),
    )
    .expect("the ConfigMap's TOML loads")
    .shutdown_grace
    .as_millis() as u64;
    let dir = read_only_dir();
    let (mut child, _staged) = start_pod(
        dir.path(),
        &[
            ("STONEGAME_LISTEN", "127.0.0.1:0"),
            ("STONEGAME_METRICS__LISTEN", "127.0.0.1:0"),
        ],
    );
    let lines = stderr_lines(&mut child);
    let mut log = Vec::new();
    let addr = loop {
        match lines.recv_timeout(Duration::from_secs(20)) {
            Ok(line) => {
                if let Some(addr) = line.strip_prefix("listening on ") {
                    break addr.to_string();
                }
                log.push(line);
            }
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "no `listening on ADDR` (exit: {:?}); stderr:\n{}",
                    child.try_wait(),
                    log.join("\n")
                );
            }
        }
    };

    // A runtime that keeps driving the client's connection after the calls,
    // as a live client does: it must see the server's GOAWAY and let the
    // drain finish.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let checked = rt.block_on(async {
        let mut client = Client::connect(&addr).await?;
        let whole = client.health("").await?;
        let service = client.health("stonegame.v1.StoneGame").await?;
        let results = client
            .solve(vec![solve_case("pod", &[3, 1, 9, 4], Variant::TwoEnds)], 1)
            .await?;
        Ok::<_, stonegame::client::ClientError>((client, whole, service, results))
    });
    let (_client, whole, service, results) = match checked {
        Ok(r) => r,
        Err(e) => {
            let _ = child.kill();
            panic!("talking to the pod's binary failed: {e}");
        }
    };
    assert_eq!(whole, SERVING, "health of the whole server");
    assert_eq!(service, SERVING, "health of stonegame.v1.StoneGame");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].id, "pod");
    assert!(results[0].error.is_none(), "{:?}", results[0]);
    assert!(
        !results[0].first_player_wins,
        "[3, 1, 9, 4] is a first-player loss"
    );

    if is_root() {
        let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
        let uid = status
            .lines()
            .find(|l| l.starts_with("Uid:"))
            .unwrap_or_default();
        assert!(
            uid.split_whitespace()
                .skip(1)
                .all(|id| id == UID.to_string()),
            "the server runs as {uid}, want {UID}"
        );
    }
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: `pid` is our child, not yet reaped.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let sent = Instant::now();
    let status = wait_for_exit(&mut child, Duration::from_millis(grace_ms));
    let Some(status) = status else {
        let _ = child.kill();
        panic!("still running {grace_ms} ms (shutdown_grace) after SIGTERM");
    };
    eprintln!("exited {} ms after SIGTERM", sent.elapsed().as_millis());
    // The rest of stderr: every log event is a JSON object (log.format =
    // "json" in the ConfigMap), for the cluster's log collector.
    log.extend(lines.iter());
    assert!(
        status.success(),
        "exit status {status:?} after SIGTERM; stderr:\n{}",
        log.join("\n")
    );
    // Besides `listening on ADDR`, `serve` prints `metrics on ADDR` plainly.
    let not_json: Vec<&String> = log
        .iter()
        .filter(|l| !l.starts_with('{') && !l.starts_with("metrics on "))
        .collect();
    assert!(
        not_json.is_empty(),
        "log lines that are not JSON: {not_json:?}"
    );
    assert!(
        log.iter().any(|l| l.contains("SIGTERM received")),
        "the shutdown is logged: {log:?}"
    );
}

/// Why the Deployment sets `enableServiceLinks: false`: the kubelet's
/// variables for a Service named `stonegame` start with `STONEGAME_`, and
/// the loader refuses them as unknown keys.
#[test]
fn service_link_variables_would_stop_the_pod_from_starting() {
    let dir = read_only_dir();
    let (mut child, _staged) = start_pod(
        dir.path(),
        &[
            ("STONEGAME_LISTEN", "127.0.0.1:0"),
            ("STONEGAME_METRICS__LISTEN", "127.0.0.1:0"),
            ("STONEGAME_SERVICE_HOST", "10.0.0.1"),
            ("STONEGAME_PORT", "tcp://10.0.0.1:50051"),
        ],
    );
    let lines = stderr_lines(&mut child);
    let status = wait_for_exit(&mut child, Duration::from_secs(20));
    let Some(status) = status else {
        let _ = child.kill();
        panic!("the binary started despite unknown STONEGAME_* keys");
    };
    let stderr: Vec<String> = lines.iter().collect();
    assert_eq!(status.code(), Some(1), "{stderr:?}");
    assert!(
        stderr.iter().any(|l| l.contains("invalid configuration")),
        "{stderr:?}"
    );
}
