//! `sha256sum`: print or check SHA-256 checksums, like GNU coreutils (the
//! driver is in `common::checksum`, shared with `md5sum`).

use super::common::checksum::{checksum_help, checksum_main, Algo};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "sha256sum",
    run,
    help: checksum_help!("sha256sum", "SHA256 (256-bit)"),
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    checksum_main(ctx, args, Algo::Sha256)
}
