//! Every relative link in README.md and docs/*.md points at a file that
//! exists, and every `#anchor` at a heading of that file (GitHub's slugs:
//! lowercase, punctuation dropped, spaces to hyphens, `-1`, `-2` … for
//! repeats). Links to other sites are not followed (no network here).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// GitHub's anchor of a heading's text.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings (outside code blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let Some(title) = line.strip_prefix('#') else {
            continue;
        };
        let title = title.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let base = slug(title);
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// The targets of the inline links `[text](target)` of a Markdown text,
/// outside code blocks and code spans, with their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans.
        let mut plain = String::new();
        for (k, part) in line.split('`').enumerate() {
            if k % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((i + 1, after[..end].trim().to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let shown = format!(
                "{}:{line}: ({target})",
                file.strip_prefix(root).unwrap().display()
            );
            if !resolved.exists() {
                broken.push(format!("{shown}: no such file"));
                continue;
            }
            if let Some(anchor) = anchor
                && resolved.extension().is_some_and(|e| e == "md")
            {
                let heads = anchors(&std::fs::read_to_string(&resolved).unwrap());
                if !heads.contains(anchor) {
                    broken.push(format!("{shown}: no heading with the anchor #{anchor}"));
                }
            }
        }
    }
    println!("{checked} relative links in {} files", files.len());
    assert!(checked > 50, "the link reader found only {checked} links");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn slugs_follow_github() {
    assert_eq!(
        slug(" Rows, the cache and admission"),
        "rows-the-cache-and-admission"
    );
    assert_eq!(
        slug(" 2. The leftmost-only variant"),
        "2-the-leftmost-only-variant"
    );
    assert_eq!(
        slug(" `stonegame interact`: judging"),
        "stonegame-interact-judging"
    );
    let heads = anchors("# A\n## A\n```\n# not a heading\n```\n#also not\n");
    assert_eq!(
        heads,
        ["a", "a-1"]
            .iter()
            .map(|s| s.to_string())
            .collect::<BTreeSet<_>>()
    );
    assert_eq!(
        links("see [x](a.md#b) and `[y](c.md)` [z](https://e.org)"),
        vec![(1, "a.md#b".to_string()), (1, "https://e.org".to_string())]
    );
}
