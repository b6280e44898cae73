use super::atomic::follow_links;

#[test]
fn follows_chains_and_dangling_links() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::os::unix::fs::symlink("b", d.join("a")).unwrap();
    std::os::unix::fs::symlink(d.join("sub/c"), d.join("b")).unwrap();
    assert_eq!(follow_links(&d.join("a")).unwrap(), d.join("sub/c"));
    std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
    assert!(follow_links(&d.join("loop")).is_err());
}
