#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Properties over random operation sequences.

use cordon_vfs::{FileSystem, Kind, MemFs, Quotas, VPath, WriteMode};
use proptest::prelude::*;

fn path() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof!["a", "b", "..", ".", "", "/", "workspace", "tmp", "c\\d", "%2e%2e"],
        1..6,
    )
    .prop_map(|parts| parts.join("/"))
}

#[derive(Debug, Clone)]
enum Op {
    Write(String, usize),
    Mkdir(String),
    Remove(String),
    Rename(String, String),
    Chdir(String),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (path(), 0usize..40).prop_map(|(p, n)| Op::Write(p, n)),
        path().prop_map(Op::Mkdir),
        path().prop_map(Op::Remove),
        (path(), path()).prop_map(|(a, b)| Op::Rename(a, b)),
        path().prop_map(Op::Chdir),
    ]
}

/// Walks the tree, returning (bytes, nodes) and checking every path is
/// normalised and under `/`.
fn walk(fs: &MemFs, dir: &str) -> (u64, u64) {
    let mut total = (0, 1);
    for (name, kind) in fs.readdir(dir).unwrap() {
        assert!(!name.is_empty() && name != "." && name != ".." && !name.contains('/'));
        let child = if dir == "/" { format!("/{name}") } else { format!("{dir}/{name}") };
        let q = Quotas::default();
        assert_eq!(VPath::parse(&VPath::root(), &child, &q).unwrap().to_string(), child);
        match kind {
            Kind::File => {
                total.0 += fs.stat(&child).unwrap().size;
                total.1 += 1;
            }
            Kind::Dir => {
                let (b, n) = walk(fs, &child);
                total.0 += b;
                total.1 += n;
            }
        }
    }
    total
}

proptest! {
    #[test]
    fn usage_matches_the_tree_and_nothing_escapes(ops in proptest::collection::vec(op(), 0..40)) {
        let mut fs = MemFs::new(Quotas { total_bytes: 200, files: 12, ..Quotas::default() });
        for op in ops {
            let _ = match op {
                Op::Write(p, n) => fs.write(&p, &vec![7; n], WriteMode::Append),
                Op::Mkdir(p) => fs.mkdir(&p, true),
                Op::Remove(p) => fs.remove(&p, true),
                Op::Rename(a, b) => fs.rename(&a, &b),
                Op::Chdir(p) => fs.chdir(&p),
            };
            let (bytes, nodes) = walk(&fs, "/");
            prop_assert_eq!(bytes, fs.usage().bytes);
            prop_assert_eq!(nodes, fs.usage().files);
            prop_assert!(bytes <= 200 && nodes <= 12);
            let names: Vec<String> = fs.readdir("/").unwrap().into_iter().map(|(n, _)| n).collect();
            prop_assert_eq!(names, vec!["tmp".to_string(), "workspace".to_string()]);
        }
    }
}
