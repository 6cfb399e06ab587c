//! The boundary depends on kraft-base and on nothing else of the workspace, so a protocol
//! crate that builds on it gets no simulator and no other protocol. Cargo stops a crate
//! from using what its manifest does not list; this test holds the list to that.

/// A manifest's dependency names, in every dependency table (normal, dev, build,
/// per target): `name = ...` or `name.workspace = true`.
fn dependencies(manifest: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line.ends_with("dependencies]");
        } else if let Some((name, _)) = line.split_once('=').filter(|_| in_dependencies) {
            names.push(name.split('.').next().unwrap_or(name).trim());
        }
    }
    names
}

#[test]
fn the_boundary_depends_on_kraft_base_alone_of_the_workspace() {
    let ours = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let workspace = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml")).unwrap();
    // The workspace's own crates: its `[workspace.dependencies]` entries with a path.
    let crates: Vec<&str> =
        workspace.lines().filter_map(|l| l.split_once(" = { path = ").map(|(name, _)| name.trim())).collect();
    assert!(crates.contains(&"kraft-base") && crates.contains(&"kraft-sim"), "{crates:?}");
    let used: Vec<&str> = dependencies(&ours).into_iter().filter(|d| crates.contains(d)).collect();
    assert_eq!(used, ["kraft-base"], "kraft-boundary may depend on kraft-base alone of the workspace's crates");
}
