#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Host directories mounted into the tree: read-only, overlay and
//! write-through, with links that leave a mount refused, FIFOs, sockets and
//! devices never opened, hard links never written and write-through within
//! the quotas, against a real directory on the host.

use std::{
    ffi::CString,
    fs,
    os::unix::{ffi::OsStrExt, fs::symlink},
    path::{Path, PathBuf},
    sync::mpsc,
    time::{Duration, Instant},
};

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

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated C string that outlives the call, and `mkfifo` only reads it.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0, "mkfifo {}", path.display());
}

/// A character device like `/dev/zero` at `path`, where this process may
/// create one (as root, outside a user namespace); `false` where it may not.
fn mknod_zero(path: &Path) -> bool {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated C string that outlives the call, and `mknod` only reads it;
    // the mode and device are plain numbers.
    unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 5)) == 0 }
}

/// Runs `f` on another thread and fails unless it returns within two
/// seconds: a host call that blocks on a FIFO fails the test instead of
/// hanging it.
#[track_caller]
fn promptly<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    let out = rx.recv_timeout(Duration::from_secs(2)).unwrap_or_else(|_| panic!("{what} blocked"));
    assert!(started.elapsed() < Duration::from_secs(2), "{what}");
    out
}

#[test]
fn fifos_sockets_and_devices_are_never_opened_and_fail_promptly() {
    let d = Dir::new("fifo");
    mkfifo(&d.host().join("pipe"));
    mkfifo(&d.host().join("sub/pipe"));
    symlink(d.host().join("pipe"), d.host().join("pipe-link")).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(d.host().join("sock")).unwrap();
    let device = mknod_zero(&d.host().join("zero"));
    if !device {
        eprintln!("cannot create a device node here: the device cases are skipped");
    }
    let specials: &[&str] =
        if device { &["pipe", "pipe-link", "sock", "zero"] } else { &["pipe", "pipe-link", "sock"] };
    let listing = ["a.txt", "inside-link", "sub"];
    let names = |t: &Tree, dir: &str| t.readdir(dir).unwrap().into_iter().map(|(n, _)| n).collect::<Vec<_>>();

    // Read-only: reads and stats are EACCES, listings hide them, writes stay EROFS.
    let mut t = Tree::new(Quotas::default(), &[mount(d.host(), "/data", false, false)]).unwrap();
    for name in specials {
        let path = format!("/data/{name}");
        let (back, results) = promptly(&path, {
            let path = path.clone();
            move || {
                let results = [
                    ("read", t.read(&path).map(|_| ()), Errno::EACCES),
                    ("stat", t.stat(&path).map(|_| ()), Errno::EACCES),
                    ("readdir", t.readdir(&path).map(|_| ()), Errno::ENOTDIR),
                    ("write", t.write(&path, b"x", WriteMode::Truncate), Errno::EROFS),
                ];
                (t, results)
            }
        });
        t = back;
        for (op, result, expected) in results {
            assert_eq!(errno(result), expected, "{op} {path}");
        }
    }
    let (mut t, err) = promptly("read /data/sub/pipe", move || {
        let r = t.read("/data/sub/pipe");
        (t, r.unwrap_err())
    });
    assert_eq!((err.errno, err.detail.as_deref()), (Errno::EACCES, Some("not a regular file or directory")));
    assert_eq!(names(&t, "/data"), listing);
    assert_eq!(names(&t, "/data/sub"), ["b.txt"]);
    assert_eq!(errno(t.chdir("/data/pipe")), Errno::ENOTDIR);

    // Write-through: every operation on them is refused at once, and they
    // stay; removing a link to one removes the link.
    let mut t = Tree::new(Quotas::default(), &[mount(d.host(), "/tmp/out", true, true)]).unwrap();
    for name in specials {
        let path = format!("/tmp/out/{name}");
        let (back, results) = promptly(&path, {
            let path = path.clone();
            let removes = if path.ends_with("-link") { Ok(()) } else { Err(Errno::EACCES) };
            move || {
                let results = [
                    ("read", t.read(&path).map(|_| ()), Err(Errno::EACCES)),
                    ("stat", t.stat(&path).map(|_| ()), Err(Errno::EACCES)),
                    ("truncate", t.write(&path, b"x", WriteMode::Truncate), Err(Errno::EACCES)),
                    ("append", t.write(&path, b"x", WriteMode::Append), Err(Errno::EACCES)),
                    ("create", t.write(&path, b"x", WriteMode::CreateNew), Err(Errno::EEXIST)),
                    ("rename", t.rename(&path, "/tmp/out/moved"), Err(Errno::EACCES)),
                    ("rename over", t.rename("/tmp/out/a.txt", &path), Err(Errno::EACCES)),
                    ("remove", t.remove(&path, false), removes),
                ];
                (t, results)
            }
        });
        t = back;
        for (op, result, expected) in results {
            assert_eq!(result.map_err(|e| e.errno), expected, "{op} {path}");
        }
        assert_eq!(fs::symlink_metadata(d.host().join(name)).is_ok(), !name.ends_with("-link"), "{name}");
    }
    assert!(!d.host().join("moved").exists());
    assert_eq!(names(&t, "/tmp/out"), listing);
    assert_eq!(t.read("/tmp/out/a.txt").unwrap(), b"alpha");
    let err = promptly("write /tmp/out/sub/pipe", move || {
        t.write("/tmp/out/sub/pipe", b"x", WriteMode::Truncate).unwrap_err()
    });
    assert_eq!((err.errno, err.detail.as_deref()), (Errno::EACCES, Some("not a regular file or directory")));

    // An overlay skips them when it copies the directory in.
    let host = d.host();
    let t = promptly("overlay copy-in", move || {
        Tree::new(Quotas::default(), &[mount(host, "/workspace/repo", true, false)]).unwrap()
    });
    assert_eq!(names(&t, "/workspace/repo"), listing);
    assert_eq!(names(&t, "/workspace/repo/sub"), ["b.txt"]);
    for name in specials {
        assert_eq!(errno(t.read(&format!("/workspace/repo/{name}"))), Errno::ENOENT, "{name}");
    }
}
#[test]
fn a_write_through_mount_never_writes_a_hard_linked_file() {
    let d = Dir::new("hardlink");
    fs::hard_link(d.0.join("outside/secret.txt"), d.host().join("linked")).unwrap();
    let mut t = Tree::new(Quotas::default(), &[mount(d.host(), "/tmp/out", true, true)]).unwrap();
    for mode in [WriteMode::Truncate, WriteMode::Append] {
        let err = t.write("/tmp/out/linked", b"pwned", mode).unwrap_err();
        assert_eq!((err.errno, err.detail.as_deref()), (Errno::EACCES, Some("a file with other hard links")));
    }
    assert_eq!(fs::read(d.0.join("outside/secret.txt")).unwrap(), b"SECRET");
    // Reading it and removing the link are allowed: neither changes the file.
    assert_eq!(t.read("/tmp/out/linked").unwrap(), b"SECRET");
    t.remove("/tmp/out/linked", false).unwrap();
    assert_eq!(fs::read(d.0.join("outside/secret.txt")).unwrap(), b"SECRET");
}

#[test]
fn a_write_through_mount_counts_against_the_quotas() {
    let d = Dir::new("quota");
    let before = fs::read_dir(d.host()).unwrap().count();
    // The tree holds /, /workspace and /tmp: 17 more entries fit.
    let quotas = Quotas { total_bytes: 1000, files: 20, file_bytes: 1000, ..Quotas::default() };
    let mut t = Tree::new(quotas, &[mount(d.host(), "/tmp/out", true, true)]).unwrap();
    let mut made = 0;
    let err = loop {
        match t.write(&format!("/tmp/out/f{made}"), b"", WriteMode::Truncate) {
            Ok(()) => made += 1,
            Err(e) => break e,
        }
        assert!(made <= 100, "no quota on entries");
    };
    assert_eq!(made, 17);
    assert_eq!((err.errno, err.detail.as_deref()), (Errno::ENOSPC, Some("at most 20 files and directories")));
    assert_eq!(errno(t.mkdir("/tmp/out/d", false)), Errno::ENOSPC);
    assert_eq!(errno(t.write("/workspace/mem", b"", WriteMode::Truncate)), Errno::ENOSPC);
    assert_eq!(fs::read_dir(d.host()).unwrap().count(), before + 17);
    // Removing entries through the mount gives them back.
    t.remove("/tmp/out/f16", false).unwrap();
    t.remove("/tmp/out/f15", false).unwrap();
    t.mkdir("/tmp/out/d", false).unwrap();
    t.write("/workspace/mem", b"", WriteMode::Truncate).unwrap();
    assert_eq!(errno(t.write("/tmp/out/f15", b"", WriteMode::Truncate)), Errno::ENOSPC);

    // Bytes: the tree and the mount together hold at most 1000.
    let mut t = Tree::new(quotas, &[mount(d.host(), "/tmp/out", true, true)]).unwrap();
    t.write("/tmp/out/f0", &[b'a'; 600], WriteMode::Truncate).unwrap();
    let err = t.write("/tmp/out/f1", &[b'b'; 600], WriteMode::Truncate).unwrap_err();
    assert_eq!(
        (err.errno, err.detail.as_deref()),
        (Errno::ENOSPC, Some("all files together are at most 1000 bytes"))
    );
    assert_eq!(fs::metadata(d.host().join("f1")).unwrap().len(), 0, "f1 is left as it was");
    assert_eq!(errno(t.write("/tmp/out/f0", &[b'a'; 401], WriteMode::Append)), Errno::ENOSPC);
    assert_eq!(errno(t.write("/workspace/mem", &[b'm'; 401], WriteMode::Truncate)), Errno::ENOSPC);
    t.write("/workspace/mem", &[b'm'; 400], WriteMode::Truncate).unwrap();
    assert_eq!(errno(t.write("/tmp/out/f2", b"x", WriteMode::Truncate)), Errno::ENOSPC);
    // Overwriting with less, or removing, gives bytes back.
    t.write("/tmp/out/f0", &[b'a'; 100], WriteMode::Truncate).unwrap();
    t.write("/tmp/out/f1", &[b'b'; 500], WriteMode::Truncate).unwrap();
    assert_eq!(errno(t.write("/tmp/out/f2", b"x", WriteMode::Truncate)), Errno::ENOSPC);
    t.remove("/tmp/out/f1", false).unwrap();
    t.mkdir("/tmp/out/x/y", true).unwrap();
    t.write("/tmp/out/x/y/z", &[b'z'; 500], WriteMode::Truncate).unwrap();
    assert_eq!(errno(t.write("/tmp/out/f2", b"x", WriteMode::Truncate)), Errno::ENOSPC);
    t.remove("/tmp/out/x", true).unwrap();
    t.write("/tmp/out/f2", &[b'c'; 500], WriteMode::Truncate).unwrap();
    // A reset empties the tree, not the mount: what is there still counts.
    t.reset().unwrap();
    assert_eq!(errno(t.write("/workspace/mem", &[b'm'; 401], WriteMode::Truncate)), Errno::ENOSPC);
    t.write("/workspace/mem", &[b'm'; 400], WriteMode::Truncate).unwrap();
}
