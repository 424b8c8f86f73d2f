//! What verifying a cache hit costs: the entry checksum (XXH3-128) against SHA-256 and BLAKE3
//! (cryptographic hashes, which the checksum does not need), on a payload the size of the
//! `bench_kernels` sm_90 cubin (2.3 MB), and a whole local hit (`Store::get`: open, read the
//! header, read the payload into its buffer, verify). Ratios from one run, best of 50.
//!
//! ```text
//! cargo run --release -p archbuild-store --example entry_bench [-- BYTES]
//! ```

use std::time::{Duration, Instant};

use sha2::Digest;

fn best(mut f: impl FnMut()) -> Duration {
    (0..50)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let len: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_300_000);
    // Incompressible, like a cubin's code sections.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let payload: Vec<u8> = (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let bb = std::hint::black_box::<&[u8]>;
    let key = archbuild_store::Key::of(b"bench");
    let entry = archbuild_store::entry::encode(b"BENCH\0\0\0", &key, &payload);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("entry");
    std::fs::write(&path, &entry).expect("write");
    let store = archbuild_store::Store::new(dir.path().join("store"));
    store.put("cubin", &key, &payload).expect("put");

    let sha = best(|| {
        std::hint::black_box(sha2::Sha256::digest(bb(&payload)));
    });
    let b3 = best(|| {
        std::hint::black_box(blake3::hash(bb(&payload)));
    });
    let verify = best(|| {
        let p = archbuild_store::entry::verify(b"BENCH\0\0\0", &key, bb(&entry)).expect("intact");
        std::hint::black_box(p.len());
    });
    let read = best(|| {
        std::hint::black_box(std::fs::read(&path).expect("read"));
    });
    let hit = best(|| {
        std::hint::black_box(store.get("cubin", &key).expect("hit"));
    });
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("payload {len} bytes, best of 50");
    println!("  SHA-256            {:.3} ms", ms(sha));
    println!("  BLAKE3             {:.3} ms", ms(b3));
    println!(
        "  XXH3-128 (verify)  {:.3} ms: {:.2}x of BLAKE3, {:.2}x of SHA-256",
        ms(verify),
        ms(verify) / ms(b3),
        ms(verify) / ms(sha)
    );
    println!("  fs::read           {:.3} ms (page cache)", ms(read));
    println!(
        "  local hit          {:.3} ms (Store::get); with BLAKE3 it would be {:.3} ms ({:.2}x)",
        ms(hit),
        ms(hit) - ms(verify) + ms(b3),
        ms(hit) / (ms(hit) - ms(verify) + ms(b3))
    );
}
