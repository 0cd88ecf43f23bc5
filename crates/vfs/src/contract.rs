//! The contract every cordon file system passes (feature `contract`): the
//! in-memory tree's own tests and every layer over it (the runtime's mounts)
//! run the same suite through [`check`].
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use crate::{Errno, FileSystem, Kind, Quotas, WriteMode};

#[track_caller]
fn errno<T: std::fmt::Debug>(r: Result<T, crate::FsError>) -> Errno {
    r.unwrap_err().errno
}

/// Runs the suite on file systems made by `make`, panicking on the first
/// broken promise.
pub fn check<F: FileSystem>(make: impl Fn(Quotas) -> F) {
    let mut fs = make(Quotas::default());
    // Layout and working directory.
    assert_eq!(fs.cwd(), "/workspace");
    assert_eq!(
        fs.readdir("/").unwrap(),
        [("tmp".to_string(), Kind::Dir), ("workspace".to_string(), Kind::Dir)]
    );
    assert!(fs.readdir("/workspace").unwrap().is_empty());

    // Writes and reads, byte for byte, relative and absolute.
    let bytes: Vec<u8> = (0..=255).collect();
    fs.write("bin.dat", &bytes, WriteMode::Truncate).unwrap();
    assert_eq!(fs.read("/workspace/bin.dat").unwrap(), bytes);
    fs.write("/tmp/t.txt", b"a", WriteMode::Truncate).unwrap();
    fs.write("/tmp/t.txt", b"b", WriteMode::Append).unwrap();
    assert_eq!(fs.read("/tmp/t.txt").unwrap(), b"ab");
    assert_eq!(errno(fs.write("/tmp/t.txt", b"c", WriteMode::CreateNew)), Errno::EEXIST);
    assert_eq!(fs.stat("/tmp/t.txt").unwrap().size, 2);
    assert_eq!(fs.stat("/tmp/t.txt").unwrap().kind, Kind::File);

    // Only /workspace and /tmp are writable.
    for path in ["/x", "/etc/passwd", "/workspace/../x", "/tmpx/a"] {
        assert_eq!(errno(fs.write(path, b"x", WriteMode::Truncate)), Errno::EROFS, "{path}");
    }
    assert_eq!(errno(fs.mkdir("/opt", false)), Errno::EROFS);
    assert_eq!(errno(fs.remove("/workspace", true)), Errno::EACCES);
    assert_eq!(errno(fs.remove("/", true)), Errno::EACCES);
    assert_eq!(errno(fs.rename("/tmp", "/workspace/tmp")), Errno::EACCES);

    // Errors name what is wrong.
    assert_eq!(errno(fs.read("missing")), Errno::ENOENT);
    assert_eq!(errno(fs.read("/workspace")), Errno::EISDIR);
    assert_eq!(errno(fs.read("bin.dat/x")), Errno::ENOTDIR);
    assert_eq!(errno(fs.write("no/such/dir/f", b"", WriteMode::Truncate)), Errno::ENOENT);
    assert_eq!(errno(fs.write("/workspace", b"", WriteMode::Truncate)), Errno::EISDIR);
    assert_eq!(errno(fs.read("a\0b")), Errno::EINVAL);
    assert_eq!(errno(fs.read(&"a".repeat(300))), Errno::ENAMETOOLONG);
    let err = fs.read("missing").unwrap_err();
    assert_eq!(err.to_string(), "ENOENT: no such file or directory, 'missing'");

    // Directories.
    fs.mkdir("a/b/c", true).unwrap();
    fs.mkdir("a/b/c", true).unwrap();
    assert_eq!(errno(fs.mkdir("a/b", false)), Errno::EEXIST);
    assert_eq!(errno(fs.mkdir("x/y", false)), Errno::ENOENT);
    fs.write("a/b/c/f.txt", b"deep", WriteMode::Truncate).unwrap();
    assert_eq!(errno(fs.remove("a", false)), Errno::ENOTEMPTY);
    fs.chdir("a/b").unwrap();
    assert_eq!(fs.cwd(), "/workspace/a/b");
    assert_eq!(fs.read("c/f.txt").unwrap(), b"deep");
    assert_eq!(fs.read("../../../../workspace/a/b/c/f.txt").unwrap(), b"deep");
    assert_eq!(errno(fs.chdir("/workspace/bin.dat")), Errno::ENOTDIR);
    fs.chdir("/workspace").unwrap();

    // Rename: files, directories, refusals.
    fs.rename("a/b/c/f.txt", "/tmp/moved.txt").unwrap();
    assert_eq!(fs.read("/tmp/moved.txt").unwrap(), b"deep");
    assert_eq!(errno(fs.read("a/b/c/f.txt")), Errno::ENOENT);
    assert_eq!(errno(fs.rename("a", "a/b/inside")), Errno::EINVAL);
    fs.rename("a", "/tmp/a2").unwrap();
    assert_eq!(fs.readdir("/tmp/a2/b").unwrap(), [("c".to_string(), Kind::Dir)]);
    assert_eq!(errno(fs.rename("/tmp/t.txt", "/tmp/a2")), Errno::EISDIR);
    assert_eq!(errno(fs.rename("/tmp/t.txt", "/etc/t.txt")), Errno::EROFS);

    // Remove, recursively.
    fs.remove("/tmp/a2", true).unwrap();
    assert_eq!(errno(fs.stat("/tmp/a2")), Errno::ENOENT);
    fs.remove("/tmp/t.txt", false).unwrap();

    // Quotas.
    let mut small = make(Quotas { total_bytes: 10, files: 5, file_bytes: 8, ..Quotas::default() });
    small.write("a", b"12345678", WriteMode::Truncate).unwrap();
    assert_eq!(errno(small.write("a", b"x", WriteMode::Append)), Errno::ENOSPC);
    assert_eq!(errno(small.write("b", b"123", WriteMode::Truncate)), Errno::ENOSPC);
    small.write("b", b"12", WriteMode::Truncate).unwrap();
    assert_eq!(errno(small.write("c", b"", WriteMode::Truncate)), Errno::ENOSPC);
    small.remove("b", false).unwrap();
    small.write("c", b"", WriteMode::Truncate).unwrap();
    assert_eq!(errno(small.mkdir("d", false)), Errno::ENOSPC);
    let deep = "/workspace".to_string() + &"/d".repeat(64);
    assert_eq!(errno(make(Quotas::default()).mkdir(&deep, true)), Errno::ENAMETOOLONG);
}
