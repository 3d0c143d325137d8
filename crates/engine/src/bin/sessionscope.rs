//! `sessionscope`: the engine on the command line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use sessionscope_engine::{Loader, dump};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprintln!("usage: sessionscope <summary|dump> <file-or-folder>... [--json]");
        return ExitCode::from(2);
    };
    let paths: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with("--")).collect();
    let mut files = Vec::new();
    for path in &paths {
        collect(Path::new(path), &mut files);
    }
    files.sort();
    let mut loader = Loader::new();
    for file in &files {
        match std::fs::read(file) {
            Ok(bytes) => {
                loader.add_bytes(&file.to_string_lossy(), &bytes);
            }
            Err(error) => eprintln!("{}: {error}", file.display()),
        }
    }
    let corpus = loader.finish();
    match command.as_str() {
        "dump" => print!("{}", dump::dump_corpus(&corpus)),
        _ => {
            let c = corpus.counts();
            println!(
                "files={} lines={} entries={} metadata={} skipped={} ignored={} diagnostics={} model={}B bytes={}B",
                corpus.files.len(),
                c.lines,
                c.entries,
                c.metadata,
                c.skipped,
                c.ignored,
                corpus.diagnostics.len(),
                corpus.model_heap_bytes(),
                corpus.bytes.iter().map(Vec::len).sum::<usize>()
            );
        }
    }
    ExitCode::SUCCESS
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        if let Ok(read) = std::fs::read_dir(path) {
            for entry in read.flatten() {
                collect(&entry.path(), out);
            }
        }
    } else {
        out.push(path.to_owned());
    }
}
