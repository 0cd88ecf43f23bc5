//! Helpers several builtins share, so that no builtin reaches into another:
//! byte search (`bytes`), lines and the operand loop of line filters
//! (`lines`), POSIX regular expressions for `grep` and `sed`
//! (`posix_regex`), the emulated file system view and path arithmetic
//! (`fs`), GNU quoting in messages (`quote`), sizes with suffixes (`size`),
//! the calendar and date layouts (`time`) and GNU `strftime` (`strftime`).

pub(crate) mod bytes;
pub(crate) mod cformat;
pub(crate) mod checksum;
pub(crate) mod fs;
pub(crate) mod head_tail;
pub(crate) mod lines;
pub(crate) mod posix_regex;
pub(crate) mod printf_format;
pub(crate) mod quote;
pub(crate) mod size;
pub(crate) mod strftime;
pub(crate) mod time;
