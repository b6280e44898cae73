//! Unit tests of the transaction's paths.

use super::*;

#[test]
fn ids_with_dots_get_their_own_records() {
    let home = Home::new("/h", crate::dialect::Dialect::Aoe);
    let a = record(&home, &Name::new("dev.example.a").unwrap());
    let b = record(&home, &Name::new("dev.example.b").unwrap());
    assert_ne!(a, b);
    assert_eq!(a, Path::new("/h/.plugins/txn/dev.example.a.json"));
    assert_eq!(a.parent(), Some(Path::new("/h/.plugins/txn")));
}
