//! Redaction throughput on a 16 MB synthetic session.
//!
//! `cargo bench -p sessionscope-engine --bench redact` reports:
//! - `redact/find`: [`Detector::find`] over every decoded string value (bytes of decoded text);
//! - `redact/scan_line`: the full first pass, JSON parsing included (bytes of JSONL);
//! - `redact/apply_line`: the second pass (bytes of JSONL).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;
use sessionscope_engine::redact::{DetectOptions, Detector, DropParts, LineRef, Redactor, warm_up};
use sessionscope_synth::{SynthOptions, generate};

fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                strings(x, out);
            }
        }
        _ => {}
    }
}

fn bench_redact(c: &mut Criterion) {
    let t = std::time::Instant::now();
    warm_up();
    eprintln!("built-in rules compiled in {:?}", t.elapsed());

    let session = generate(&SynthOptions { target_bytes: 16 << 20, seed: 7, ..Default::default() });
    let lines: Vec<&[u8]> = session.main.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    let mut texts = Vec::new();
    for l in &lines {
        if let Ok(v) = serde_json::from_slice::<Value>(l) {
            strings(&v, &mut texts);
        }
    }
    let text_bytes: usize = texts.iter().map(String::len).sum();
    eprintln!(
        "16 MB synthetic: {} bytes of JSONL, {} lines, {} strings, {} bytes of decoded text",
        session.main.len(),
        lines.len(),
        texts.len(),
        text_bytes
    );

    let opts = DetectOptions::default();
    let detector = Detector::new(&opts).unwrap();
    let mut group = c.benchmark_group("redact");
    group.sample_size(10);

    group.throughput(Throughput::Bytes(text_bytes as u64));
    group.bench_function("find", |b| {
        let mut hits = Vec::new();
        b.iter(|| {
            let mut n = 0;
            for t in &texts {
                detector.find(t, &mut hits);
                n += hits.len();
            }
            n
        })
    });

    group.throughput(Throughput::Bytes(session.main.len() as u64));
    group.bench_function("scan_line", |b| {
        b.iter(|| {
            let mut r = Redactor::new(&opts).unwrap();
            for (i, l) in lines.iter().enumerate() {
                r.scan_line(LineRef::new(0, i as u32 + 1), l);
            }
            r.findings().len()
        })
    });

    let mut r = Redactor::new(&opts).unwrap();
    for (i, l) in lines.iter().enumerate() {
        r.scan_line(LineRef::new(0, i as u32 + 1), l);
    }
    eprintln!("findings: {:?}", r.stats().kinds);
    group.bench_function("apply_line", |b| {
        let parts = DropParts::default();
        b.iter(|| {
            lines
                .iter()
                .map(|l| r.apply_line(l, &parts))
                .filter(|o| matches!(o, sessionscope_engine::redact::LineOutcome::Kept(_)))
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_redact);
criterion_main!(benches);
