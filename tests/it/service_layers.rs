//! `src/service/` in layers (docs/service.md, "Layers"): every import
//! between its folders points down, edge → rpc → state → metrics → config,
//! and no two of its modules import each other in a circle; and in the
//! whole crate (`src/`), no modules import each other in a circle.
//!
//! The check reads the source: every path in code (comments and doc links
//! left out) that names `crate::service::…` or climbs out of a file with
//! `super::…` is resolved to the module it reaches. A reference from a
//! module to one of its own ancestors (a child using its parent's items)
//! is the shape Rust modules have, not an import between rooms, and is not
//! an edge of the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers from the top down.
const LAYERS: [&str; 5] = ["edge", "rpc", "state", "metrics", "config"];

/// A module's path below `service`, e.g. `["state", "limits"]`.
type Module = Vec<String>;

/// Every `.rs` file under `dir` with its module path below `service`.
fn modules(dir: &Path, prefix: &Module, out: &mut BTreeMap<Module, PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src/service")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            let mut m = prefix.clone();
            m.push(name);
            modules(&path, &m, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let mut m = prefix.clone();
            if name != "mod" {
                m.push(name);
            }
            out.insert(m, path);
        }
    }
}

/// The code of a file without its comments (line comments, doc comments
/// and block comments) and string literals' contents.
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < bytes.len() && bytes[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < bytes.len() && !(bytes[i] == '*' && bytes[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '"' {
            // A string literal (serde's `deserialize_with = "path"` names
            // code, so keep paths inside strings: only skip escapes).
            out.push(c);
            i += 1;
            while i < bytes.len() && bytes[i] != '"' {
                if bytes[i] == '\\' {
                    i += 1;
                } else {
                    out.push(bytes[i]);
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The paths a piece of code names: `crate::service::a::b` (`root` is the
/// `crate::…::` prefix of the tree checked), `super::super::x` and brace
/// groups (`use super::{a, b::c}`), each as its segments.
fn paths(code: &str, root: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let starts = |w: &str| {
            chars[i..].iter().take(w.len()).copied().eq(w.chars())
                && (i == 0 || !(ident(chars[i - 1]) || chars[i - 1] == ':'))
        };
        if starts(root) || starts("super::") {
            let (segs, end) = read_path(&chars, i);
            out.extend(segs);
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// The path (or paths, with braces) starting at `i`, and where it ends.
fn read_path(chars: &[char], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut segs = Vec::new();
    loop {
        let start = i;
        while i < chars.len() && ident(chars[i]) {
            i += 1;
        }
        if i > start {
            segs.push(chars[start..i].iter().collect::<String>());
        }
        if chars[i..].starts_with(&[':', ':']) {
            i += 2;
            if chars.get(i) == Some(&'{') {
                // A group: each item is a path below `segs`.
                i += 1;
                let mut all = Vec::new();
                loop {
                    while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ',') {
                        i += 1;
                    }
                    if i >= chars.len() || chars[i] == '}' {
                        i += 1;
                        break;
                    }
                    let (inner, end) = read_path(chars, i);
                    for p in inner {
                        let mut full = segs.clone();
                        full.extend(p);
                        all.push(full);
                    }
                    i = end.max(i + 1);
                }
                return (all, i);
            }
            continue;
        }
        return (vec![segs], i);
    }
}

/// The module of the tree a path written in `from` reaches: the longest
/// prefix of the resolved path that is a module (a file or a folder).
/// `root` is the number of segments of the tree's `crate::…` prefix.
fn resolve(
    from: &Module,
    path: &[String],
    known: &BTreeSet<Module>,
    root: usize,
) -> Option<Module> {
    let mut base: Module;
    let mut rest = path;
    if path.first().map(String::as_str) == Some("crate") {
        base = Vec::new();
        rest = path.get(root..)?; // crate::service::, or crate::
    } else {
        base = from.clone();
        while rest.first().map(String::as_str) == Some("super") {
            base.pop()?;
            rest = &rest[1..];
        }
    }
    for seg in rest {
        let mut next = base.clone();
        next.push(seg.clone());
        if known.contains(&next) {
            base = next;
        } else {
            break;
        }
    }
    Some(base)
}

fn layer(m: &Module) -> Option<usize> {
    LAYERS
        .iter()
        .position(|l| m.first().map(String::as_str) == Some(l))
}

#[test]
fn every_import_between_the_layers_points_down_and_none_circles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/service");
    let mut files = BTreeMap::new();
    modules(&root, &Vec::new(), &mut files);
    let known: BTreeSet<Module> = files.keys().cloned().collect();
    for l in LAYERS {
        assert!(
            known.contains(&vec![l.to_string()]),
            "src/service/{l}/ is a layer"
        );
    }
    // Only the layers' folders (and service/mod.rs) under src/service.
    for m in &known {
        assert!(
            m.is_empty() || layer(m).is_some(),
            "src/service/{} is outside the layers {LAYERS:?}",
            m.join("/")
        );
    }

    let mut up = Vec::new();
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (from, file) in &files {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for path in paths(&code, "crate::service::") {
            let Some(to) = resolve(from, &path, &known, 2) else {
                continue;
            };
            if from.starts_with(&to) {
                continue; // its own module or an ancestor's items
            }
            if let (Some(a), Some(b)) = (layer(from), layer(&to))
                && b < a
            {
                up.push(format!(
                    "{} ({}) → {} ({}): {}",
                    from.join("/"),
                    LAYERS[a],
                    to.join("/"),
                    LAYERS[b],
                    path.join("::")
                ));
            }
            edges.entry(from.clone()).or_default().insert(to);
        }
    }
    assert!(up.is_empty(), "imports pointing up:\n{}", up.join("\n"));
    // The checker sees the imports that are there (a reader that found
    // nothing would pass the test above).
    let m = |s: &str| s.split('/').map(String::from).collect::<Module>();
    for (from, to) in [
        ("edge/server", "rpc/solve"),
        ("rpc/play", "state/row_cache"),
        ("state/shared", "metrics"),
        ("metrics/families", "metrics/units"),
        ("edge/transport", "config"),
    ] {
        assert!(
            edges.get(&m(from)).is_some_and(|e| e.contains(&m(to))),
            "{from} imports {to}, but the checker did not see it"
        );
    }

    let circles = circles(&edges);
    assert!(
        circles.is_empty(),
        "modules in a circle:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_checker_resolves_crate_and_super_paths_outside_comments() {
    let known: BTreeSet<Module> = [
        vec!["config".to_string()],
        vec!["config".to_string(), "settings".to_string()],
        vec!["edge".to_string()],
        vec!["edge".to_string(), "web".to_string()],
    ]
    .into_iter()
    .collect();
    let from = vec!["config".to_string(), "settings".to_string()];
    let code = code_of(
        "// use crate::service::edge::web; (a comment)\n\
         use crate::service::{edge::web::WebConfig, config};\n\
         fn f() { super::super::edge::x(); }",
    );
    let reached: Vec<Module> = paths(&code, "crate::service::")
        .iter()
        .filter_map(|p| resolve(&from, p, &known, 2))
        .collect();
    assert_eq!(
        reached,
        vec![
            vec!["edge".to_string(), "web".to_string()],
            vec!["config".to_string()],
            vec!["edge".to_string()],
        ]
    );
}

/// The circles of an import graph, one for each back edge a depth-first
/// search meets (`a → b → a`).
fn circles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<String> {
    let mut state: BTreeMap<&Module, u8> = BTreeMap::new(); // 1 on stack, 2 done
    let mut circles = Vec::new();
    fn visit<'a>(
        m: &'a Module,
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<&'a Module, u8>,
        stack: &mut Vec<&'a Module>,
        circles: &mut Vec<String>,
    ) {
        state.insert(m, 1);
        stack.push(m);
        for to in edges.get(m).into_iter().flatten() {
            match state.get(to) {
                Some(1) => {
                    let at = stack.iter().position(|s| *s == to).unwrap();
                    let ring: Vec<String> = stack[at..].iter().map(|s| s.join("/")).collect();
                    circles.push(format!("{} → {}", ring.join(" → "), to.join("/")));
                }
                Some(_) => {}
                None => visit(to, edges, state, stack, circles),
            }
        }
        stack.pop();
        state.insert(m, 2);
    }
    for m in edges.keys() {
        if !state.contains_key(m) {
            visit(m, edges, &mut state, &mut Vec::new(), &mut circles);
        }
    }
    circles
}

/// The import graph of the modules under `src/` (`crate::…` and
/// `super::…` paths; a module using its own ancestors' items is not an
/// edge).
fn crate_graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    modules(&root, &Vec::new(), &mut files);
    // src/lib.rs and src/main.rs are the crate roots, not modules `lib`
    // and `main`.
    let lib = files.remove(&vec!["lib".to_string()]);
    files.remove(&vec!["main".to_string()]);
    if let Some(lib) = lib {
        files.insert(Vec::new(), lib);
    }
    let known: BTreeSet<Module> = files.keys().cloned().collect();
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (from, file) in &files {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let own = edges.entry(from.clone()).or_default();
        for path in paths(&code, "crate::") {
            let Some(to) = resolve(from, &path, &known, 1) else {
                continue;
            };
            if !from.starts_with(&to) {
                own.insert(to);
            }
        }
    }
    edges
}

/// No two modules anywhere in `src/` import each other, directly or
/// around a loop (issue 29: `service/config` ↔ `service/telemetry` was
/// one).
#[test]
fn no_modules_of_the_crate_import_each_other_in_a_circle() {
    let edges = crate_graph();
    // The reader sees the imports that are there.
    let m = |s: &str| s.split('/').map(String::from).collect::<Module>();
    for (from, to) in [
        ("core/game", "core/remoteness"),
        ("service/rpc/solve", "core"),
        ("cli/solve", "ojformat"),
    ] {
        assert!(
            edges.get(&m(from)).is_some_and(|e| e
                .iter()
                .any(|t| m(to).starts_with(t) || t.starts_with(&m(to)))),
            "{from} imports {to}, but the checker did not see it: {:?}",
            edges.get(&m(from))
        );
    }
    let circles = circles(&edges);
    assert!(
        circles.is_empty(),
        "modules in a circle:\n{}",
        circles.join("\n")
    );
}
