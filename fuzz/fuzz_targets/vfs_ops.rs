//! Path normalisation and file-system operations on arbitrary paths and
//! bytes: no panic, nothing escapes `/`, usage never exceeds the quotas, and
//! an export re-imports to the same tree.
#![no_main]
use cordon_vfs::{FileSystem, MemFs, Quotas, VPath, WriteMode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let quotas = Quotas { total_bytes: 4096, files: 64, ..Quotas::default() };
    let mut fs = MemFs::new(quotas);
    for chunk in data.split(|b| *b == 0xff).take(64) {
        let Some((&op, rest)) = chunk.split_first() else { continue };
        let text = String::from_utf8_lossy(rest);
        let (a, b) = text.split_once('|').unwrap_or((&text, "x"));
        let _ = match op % 7 {
            0 => fs.write(a, b.as_bytes(), WriteMode::Append),
            1 => fs.mkdir(a, op & 8 != 0),
            2 => fs.remove(a, op & 8 != 0),
            3 => fs.rename(a, b),
            4 => fs.chdir(a),
            5 => fs.read(a).map(|_| ()),
            _ => fs.readdir(a).map(|_| ()),
        };
        if let Ok(p) = VPath::parse(&VPath::root(), a, &quotas) {
            assert!(p.components().iter().all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains('/')));
        }
        assert!(fs.usage().bytes <= quotas.total_bytes && fs.usage().files <= quotas.files);
    }
    let image = fs.export();
    let back = MemFs::import(&image, quotas).expect("an export re-imports");
    assert_eq!(back.export(), image);
});
