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

#[test]
fn modes_default_change_and_survive_writes_renames_and_snapshots() {
    let mut fs = MemFs::new(Quotas::default());
    fs.write("f", b"a", WriteMode::Truncate).unwrap();
    fs.mkdir("d", false).unwrap();
    assert_eq!(fs.stat("f").unwrap().mode, 0o644);
    assert_eq!(fs.stat("d").unwrap().mode, 0o755);
    fs.chmod("f", 0o100_600).unwrap();
    assert_eq!(fs.stat("f").unwrap().mode, 0o600, "only the permission bits are kept");
    fs.write("f", b"b", WriteMode::Truncate).unwrap();
    fs.write("f", b"c", WriteMode::Append).unwrap();
    assert_eq!(fs.stat("f").unwrap().mode, 0o600, "rewriting keeps the bits");
    fs.chmod("d", 0o4700).unwrap();
    fs.rename("f", "d/g").unwrap();
    assert_eq!(fs.stat("d/g").unwrap().mode, 0o600);
    let back = MemFs::import(&fs.export(), Quotas::default()).unwrap();
    assert_eq!(back.stat("d").unwrap().mode, 0o4700);
    assert_eq!(back.stat("d/g").unwrap().mode, 0o600);
    assert_eq!(back.read("d/g").unwrap(), b"bc");
}

#[test]
fn chmod_never_opens_a_read_only_area() {
    let mut fs = MemFs::new(Quotas::default());
    assert_eq!(fs.chmod("/", 0o777).unwrap_err().errno.as_str(), "EROFS");
    assert_eq!(fs.chmod("/workspace/nope", 0o777).unwrap_err().errno.as_str(), "ENOENT");
    fs.write("f", b"", WriteMode::Truncate).unwrap();
    fs.chmod("f", 0).unwrap();
    // Bits are metadata only: the owner (the run) still reads and writes.
    fs.write("f", b"x", WriteMode::Truncate).unwrap();
    assert_eq!(fs.read("f").unwrap(), b"x");
}

#[test]
fn version_1_images_import_with_default_modes() {
    // Version 1: no bits after each mtime.
    let mut img = 1u32.to_le_bytes().to_vec();
    let put = |img: &mut Vec<u8>, b: &[u8]| {
        img.extend_from_slice(&(b.len() as u64).to_le_bytes());
        img.extend_from_slice(b);
    };
    put(&mut img, b"/workspace");
    img.push(b'd');
    put(&mut img, b"/workspace/d");
    img.extend_from_slice(&5u64.to_le_bytes());
    img.push(b'f');
    put(&mut img, b"/workspace/d/f");
    img.extend_from_slice(&6u64.to_le_bytes());
    put(&mut img, b"hi");
    let fs = MemFs::import(&img, Quotas::default()).unwrap();
    assert_eq!(fs.stat("d").unwrap().mode, 0o755);
    assert_eq!(fs.stat("d/f").unwrap().mode, 0o644);
    assert_eq!(fs.read("d/f").unwrap(), b"hi");
}
