//! `md5sum`: print or check MD5 checksums, like GNU coreutils (the driver
//! is shared with `sha256sum`).

use super::sha256sum::{checksum_main, Algo};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "md5sum",
    run,
    help: "Usage: md5sum [OPTION]... [FILE]...
Print or check MD5 (128-bit) checksums.

With no FILE, or when FILE is -, read standard input.
  -b, --binary          read in binary mode (marks names with '*')
  -c, --check           read checksums from the FILEs and check them
      --tag             create a BSD-style checksum
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline
The following options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines
      --help            display this help and exit
",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    checksum_main(ctx, args, Algo::Md5)
}
