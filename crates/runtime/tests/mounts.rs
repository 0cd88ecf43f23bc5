#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Host directories mounted into the tree: read-only, overlay and
//! write-through, with links that leave a mount refused, against a real
//! directory on the host.

use std::{fs, os::unix::fs::symlink, path::PathBuf};

use cordon_runtime::{vfs::Errno, vfs::FileSystem, vfs::Kind, vfs::Quotas, vfs::WriteMode, MountSpec, Tree};

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("cordon-mounts-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("host/sub")).unwrap();
        fs::create_dir_all(dir.join("outside")).unwrap();
        fs::write(dir.join("host/a.txt"), "alpha").unwrap();
        fs::write(dir.join("host/sub/b.txt"), "beta").unwrap();
        fs::write(dir.join("outside/secret.txt"), "SECRET").unwrap();
        symlink(dir.join("host/a.txt"), dir.join("host/inside-link")).unwrap();
        symlink(dir.join("outside/secret.txt"), dir.join("host/escape")).unwrap();
        symlink(dir.join("outside"), dir.join("host/escape-dir")).unwrap();
        symlink("../outside/secret.txt", dir.join("host/escape-relative")).unwrap();
        Self(dir)
    }
    fn host(&self) -> PathBuf {
        self.0.join("host")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn mount(host: PathBuf, guest: &str, writable: bool, write_through: bool) -> MountSpec {
    MountSpec { host_path: host, guest_path: guest.into(), writable, write_through }
}

#[track_caller]
fn errno<T: std::fmt::Debug>(r: Result<T, cordon_runtime::vfs::FsError>) -> Errno {
    r.unwrap_err().errno
}

#[test]
fn a_read_only_mount_reads_through_and_refuses_writes_and_escapes() {
    let d = Dir::new("ro");
    let mut t = Tree::new(Quotas::default(), &[mount(d.host(), "/data", false, false)]).unwrap();
    assert_eq!(t.read("/data/a.txt").unwrap(), b"alpha");
    assert_eq!(t.read("/data/sub/b.txt").unwrap(), b"beta");
    assert_eq!(t.read("/data/inside-link").unwrap(), b"alpha");
    // Host changes show through.
    fs::write(d.host().join("a.txt"), "changed").unwrap();
    assert_eq!(t.read("/data/a.txt").unwrap(), b"changed");
    // Links that leave the mount, however written, are refused.
    for path in ["/data/escape", "/data/escape-relative", "/data/escape-dir/secret.txt"] {
        assert_eq!(errno(t.read(path)), Errno::EACCES, "{path}");
    }
    assert_eq!(errno(t.readdir("/data/escape-dir")), Errno::EACCES);
    // `..` never climbs out: it is resolved on guest paths first.
    assert_eq!(errno(t.read("/data/../outside/secret.txt")), Errno::ENOENT);
    assert_eq!(errno(t.read("/data/sub/../../outside/secret.txt")), Errno::ENOENT);
    // Listings hide the escaping links; the mount point shows in its parent.
    let names: Vec<_> = t.readdir("/data").unwrap().into_iter().map(|(n, k)| (n, k == Kind::Dir)).collect();
    assert_eq!(
        names,
        [("a.txt".into(), false), ("inside-link".into(), false), ("sub".into(), true)] as [(String, bool); 3]
    );
    assert_eq!(
        t.readdir("/").unwrap().into_iter().map(|(n, _)| n).collect::<Vec<_>>(),
        ["data", "tmp", "workspace"]
    );
    assert_eq!(t.stat("/data").unwrap().kind, Kind::Dir);
    assert_eq!(t.stat("/data/sub/b.txt").unwrap().size, 4);
    // Every write is EROFS.
    assert_eq!(errno(t.write("/data/new.txt", b"x", WriteMode::Truncate)), Errno::EROFS);
    assert_eq!(errno(t.write("/data/a.txt", b"x", WriteMode::Append)), Errno::EROFS);
    assert_eq!(errno(t.mkdir("/data/d", false)), Errno::EROFS);
    assert_eq!(errno(t.remove("/data/a.txt", false)), Errno::EROFS);
    assert_eq!(errno(t.rename("/data/a.txt", "/data/b.txt")), Errno::EROFS);
    assert_eq!(errno(t.rename("/data/a.txt", "/workspace/a.txt")), Errno::EINVAL);
    assert!(!d.host().join("new.txt").exists());
    // The working directory can be inside the mount.
    t.chdir("/data/sub").unwrap();
    assert_eq!(t.cwd(), "/data/sub");
    assert_eq!(t.read("b.txt").unwrap(), b"beta");
    assert_eq!(t.read("../a.txt").unwrap(), b"changed");
    t.chdir("/workspace").unwrap();
    t.write("w.txt", b"mem", WriteMode::Truncate).unwrap();
    assert_eq!(t.read("/workspace/w.txt").unwrap(), b"mem");
    assert_eq!(fs::read(d.0.join("outside/secret.txt")).unwrap(), b"SECRET");
}

#[test]
fn a_writable_mount_is_an_overlay_in_memory() {
    let d = Dir::new("overlay");
    let mut t = Tree::new(Quotas::default(), &[mount(d.host(), "/workspace/repo", true, false)]).unwrap();
    assert_eq!(t.read("/workspace/repo/a.txt").unwrap(), b"alpha");
    assert_eq!(t.read("/workspace/repo/inside-link").unwrap(), b"alpha");
    assert_eq!(errno(t.read("/workspace/repo/escape")), Errno::ENOENT);
    t.write("/workspace/repo/a.txt", b"edited", WriteMode::Truncate).unwrap();
    t.write("/workspace/repo/new.txt", b"new", WriteMode::Truncate).unwrap();
    t.remove("/workspace/repo/sub", true).unwrap();
    assert_eq!(t.read("/workspace/repo/a.txt").unwrap(), b"edited");
    // The host is untouched.
    assert_eq!(fs::read(d.host().join("a.txt")).unwrap(), b"alpha");
    assert!(!d.host().join("new.txt").exists());
    assert!(d.host().join("sub/b.txt").exists());
    // A reset copies the host directory in again.
    t.reset().unwrap();
    assert_eq!(t.read("/workspace/repo/a.txt").unwrap(), b"alpha");
    assert_eq!(errno(t.read("/workspace/repo/new.txt")), Errno::ENOENT);
    // The copy counts against the quotas.
    let small = Quotas { total_bytes: 4, ..Quotas::default() };
    let err = Tree::new(small, &[mount(d.host(), "/workspace/repo", true, false)]).err().unwrap();
    assert!(err.starts_with("mounts: copying /workspace/repo into the sandbox: ENOSPC"), "{err}");
}

#[test]
fn a_write_through_mount_writes_the_host_directory_and_nothing_outside_it() {
    let d = Dir::new("wt");
    let mut t = Tree::new(Quotas::default(), &[mount(d.host(), "/tmp/out", true, true)]).unwrap();
    t.write("/tmp/out/new.txt", b"hello", WriteMode::Truncate).unwrap();
    assert_eq!(fs::read(d.host().join("new.txt")).unwrap(), b"hello");
    t.write("/tmp/out/new.txt", b"!", WriteMode::Append).unwrap();
    assert_eq!(fs::read(d.host().join("new.txt")).unwrap(), b"hello!");
    assert_eq!(errno(t.write("/tmp/out/new.txt", b"x", WriteMode::CreateNew)), Errno::EEXIST);
    t.mkdir("/tmp/out/x/y", true).unwrap();
    assert!(d.host().join("x/y").is_dir());
    t.rename("/tmp/out/new.txt", "/tmp/out/x/moved.txt").unwrap();
    assert_eq!(fs::read(d.host().join("x/moved.txt")).unwrap(), b"hello!");
    // Writing through a link that leaves the mount is refused; the target is intact.
    assert_eq!(errno(t.write("/tmp/out/escape", b"pwned", WriteMode::Truncate)), Errno::EACCES);
    assert_eq!(errno(t.write("/tmp/out/escape-dir/new", b"pwned", WriteMode::Truncate)), Errno::EACCES);
    assert_eq!(fs::read(d.0.join("outside/secret.txt")).unwrap(), b"SECRET");
    assert!(!d.0.join("outside/new").exists());
    // Removing a link removes the link, not what it points to.
    t.remove("/tmp/out/inside-link", false).unwrap();
    assert!(!d.host().join("inside-link").exists());
    assert!(d.host().join("a.txt").exists());
    assert_eq!(errno(t.remove("/tmp/out", true)), Errno::EACCES);
    assert_eq!(errno(t.remove("/tmp", true)), Errno::EACCES);
    // The quotas bound what the guest writes to the host.
    let small = Quotas { file_bytes: 3, ..Quotas::default() };
    let mut t = Tree::new(small, &[mount(d.host(), "/tmp/out", true, true)]).unwrap();
    assert_eq!(errno(t.write("/tmp/out/big", b"1234", WriteMode::Truncate)), Errno::ENOSPC);
    assert!(!d.host().join("big").exists());
}

#[test]
fn malformed_mounts_are_refused() {
    let d = Dir::new("bad");
    let q = Quotas::default;
    let cases: Vec<(MountSpec, &str)> = vec![
        (mount(d.0.join("missing"), "/data", false, false), "mounts: hostPath"),
        (mount(d.host().join("a.txt"), "/data", false, false), "is not a directory"),
        (mount(d.host(), "data", false, false), "must be absolute"),
        (mount(d.host(), "/", false, false), "must be a directory directly below /"),
        (mount(d.host(), "/workspace", false, false), "must be a directory directly below /"),
        (mount(d.host(), "/opt/data", false, false), "must be a directory directly below /"),
        (mount(d.host(), "/data", true, false), "must be inside /workspace or /tmp"),
        (mount(d.host(), "/tmp/x", false, true), "writeThrough without writable"),
    ];
    for (spec, expected) in cases {
        let err = Tree::new(q(), std::slice::from_ref(&spec)).err().unwrap();
        assert!(err.contains(expected), "{spec:?}: {err}");
    }
    let err = Tree::new(
        q(),
        &[mount(d.host(), "/workspace/a", false, false), mount(d.host(), "/workspace/a/b", false, false)],
    )
    .err()
    .unwrap();
    assert!(err.contains("overlaps the mount at /workspace/a"), "{err}");
}

#[test]
fn the_tree_passes_the_file_system_contract() {
    cordon_runtime::vfs::contract::check(|q| Tree::new(q, &[]).unwrap());
    // With a read-only mount beside the tree, everything outside it behaves the same.
    let d = Dir::new("contract");
    let host = d.host();
    let mut t = Tree::new(Quotas::default(), &[mount(host, "/workspace/ref", false, false)]).unwrap();
    t.write("/workspace/x.txt", b"x", WriteMode::Truncate).unwrap();
    assert_eq!(
        t.readdir("/workspace").unwrap().into_iter().map(|(n, _)| n).collect::<Vec<_>>(),
        ["ref", "x.txt"]
    );
    assert_eq!(errno(t.write("/workspace/ref", b"x", WriteMode::Truncate)), Errno::EROFS);
    assert_eq!(errno(t.rename("/workspace", "/tmp/w")), Errno::EACCES);
}
