//! The whole pipeline on a `.jsonl.zst` file. An even first byte: the rest is compressed into a
//! valid frame (the fuzzer drives the decompressed content). An odd one: the zstd magic followed by
//! the rest, raw (the fuzzer drives the decoder with corrupt frames).
#![no_main]

use libfuzzer_sys::fuzz_target;

const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode % 2 == 0 {
        zstd::encode_all(rest, 1).unwrap()
    } else {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(rest);
        b
    };
    let path = std::env::temp_dir().join(format!("arbor-fuzz-{}.jsonl.zst", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let a = arbor_core::analyze(std::slice::from_ref(&path), &mut ());
    let r = a.report();
    let _ = serde_json::to_string(&r).unwrap();
    assert_eq!(a.records().len() as u64, r.inputs.iter().map(|i| i.records).sum::<u64>());
});
