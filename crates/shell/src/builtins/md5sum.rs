//! `md5sum`: print or check MD5 checksums, like GNU coreutils (the driver
//! is in `common::checksum`, shared with `sha256sum`).

use super::common::checksum::{checksum_help, checksum_main, Algo};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin =
    Builtin { name: "md5sum", run, help: checksum_help!("md5sum", "MD5 (128-bit)"), help_flag: true };

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    checksum_main(ctx, args, Algo::Md5)
}
