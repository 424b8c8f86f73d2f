//! What verifying a cache hit costs: SHA-256 (a common choice for content
//! addressing) against BLAKE3 (what the store uses), on a payload the size of the `bench_kernels` sm_90 cubin (2.3 MB), plus reading
//! the entry from the page cache. Ratios from one run, best of 50.
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
    let key = archbuild_store::Key::of(b"bench");
    let entry = archbuild_store::entry::encode(b"BENCH\0\0\0", &key, &payload);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("entry");
    std::fs::write(&path, &entry).expect("write");
    let sha = best(|| {
        std::hint::black_box(sha2::Sha256::digest(std::hint::black_box(&payload)));
    });
    let b3 = best(|| {
        std::hint::black_box(blake3::hash(std::hint::black_box(&payload)));
    });
    let read = best(|| {
        std::hint::black_box(std::fs::read(&path).expect("read"));
    });
    let hit = best(|| {
        let bytes = std::fs::read(&path).expect("read");
        let p = archbuild_store::entry::verify(b"BENCH\0\0\0", &key, &bytes).expect("intact");
        std::hint::black_box(p.len());
    });
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("payload {len} bytes, best of 50");
    println!("  SHA-256   {:.3} ms", ms(sha));
    println!(
        "  BLAKE3    {:.3} ms  ({:.2}x of SHA-256)",
        ms(b3),
        ms(b3) / ms(sha)
    );
    println!("  read      {:.3} ms (page cache)", ms(read));
    println!(
        "  local hit {:.3} ms (read + verify); with SHA-256 it would be {:.3} ms ({:.2}x)",
        ms(hit),
        ms(hit) - ms(b3) + ms(sha),
        ms(hit) / (ms(hit) - ms(b3) + ms(sha))
    );
}
