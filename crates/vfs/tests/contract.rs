#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! The in-memory tree against the shared contract (`cordon_vfs::contract`),
//! and what only it promises.

use cordon_vfs::{FileSystem, MemFs, Quotas, WriteMode};

#[test]
fn memfs_passes_the_contract() {
    cordon_vfs::contract::check(MemFs::new);
}

#[test]
fn the_working_directory_always_exists() {
    let mut fs = MemFs::new(Quotas::default());
    fs.mkdir("a/b", true).unwrap();
    fs.chdir("a/b").unwrap();
    fs.rename("/workspace/a", "/tmp/a").unwrap();
    assert_eq!(fs.cwd(), "/tmp/a/b");
    fs.remove(".", false).unwrap();
    assert_eq!(fs.cwd(), "/workspace");
    fs.mkdir("/tmp/c", false).unwrap();
    fs.chdir("/tmp/c").unwrap();
    fs.remove("/tmp", true).unwrap_err();
    fs.remove("/tmp/c", true).unwrap();
    assert_eq!(fs.cwd(), "/workspace");
    // A session whose directory went away still snapshots and restores.
    let back = MemFs::import(&fs.export(), Quotas::default()).unwrap();
    assert_eq!(back.cwd(), "/workspace");
}

#[test]
fn memfs_tracks_usage() {
    let mut fs = MemFs::new(Quotas::default());
    assert_eq!(fs.usage().files, 3);
    fs.mkdir("a/b", true).unwrap();
    fs.write("a/b/f", &[0; 100], WriteMode::Truncate).unwrap();
    fs.write("a/g", &[0; 50], WriteMode::Truncate).unwrap();
    assert_eq!((fs.usage().bytes, fs.usage().files), (150, 7));
    fs.write("a/g", &[0; 10], WriteMode::Truncate).unwrap();
    assert_eq!(fs.usage().bytes, 110);
    fs.remove("a", true).unwrap();
    assert_eq!((fs.usage().bytes, fs.usage().files), (0, 3));
}

#[test]
fn memfs_exports_and_imports_exactly() {
    let mut fs = MemFs::new(Quotas::default());
    fs.mkdir("a/b", true).unwrap();
    fs.write("a/b/bin", &(0..=255).collect::<Vec<u8>>(), WriteMode::Truncate).unwrap();
    fs.write("/tmp/t", b"text", WriteMode::Truncate).unwrap();
    fs.mkdir("/tmp/empty", false).unwrap();
    fs.chdir("a").unwrap();
    let image = fs.export();
    let back = MemFs::import(&image, Quotas::default()).unwrap();
    assert_eq!(back.export(), image);
    assert_eq!(back.cwd(), "/workspace/a");
    assert_eq!(back.read("b/bin").unwrap(), (0..=255).collect::<Vec<u8>>());
    assert_eq!(back.usage(), fs.usage());
    // Truncated, corrupt or over-quota images are refused whole.
    assert!(MemFs::import(&image[..image.len() - 1], Quotas::default()).is_err());
    assert!(MemFs::import(b"\x02\0\0\0", Quotas::default()).is_err());
    assert!(MemFs::import(&image, Quotas { total_bytes: 10, ..Quotas::default() }).is_err());
    let mut evil = image.clone();
    let at = evil.windows(4).position(|w| w == b"/tmp").unwrap();
    evil[at + 1] = b'e'; // "/emp/t": outside the writable roots
    assert!(MemFs::import(&evil, Quotas::default()).is_err());
}
