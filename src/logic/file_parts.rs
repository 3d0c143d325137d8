//! The parts of files too big to show whole: for each file a load read in part, which lines are
//! shown, of how many, and where the next part starts. What the load summary's part buttons are
//! made of.

use sessionscope_engine::Corpus;
use sessionscope_engine::model::{FileId, Start};

/// A file shown in part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownPart {
    pub file: FileId,
    pub path: String,
    /// The lines shown, numbered as in the whole file, and the whole file's lines.
    pub first_line: u64,
    pub last_line: u64,
    pub file_lines: u64,
    /// The bytes shown, and the whole file's.
    pub shown_bytes: u64,
    pub file_size: u64,
    /// Where the next part starts, if lines were left out after this one.
    pub next: Option<Start>,
}

impl ShownPart {
    /// Whether the part shown is the file's first.
    pub fn is_first(&self) -> bool {
        self.first_line <= 1
    }
}

/// Every file of a corpus that was read in part, in the corpus's order (a file's parts over
/// 2 GiB, read whole, are not listed).
pub fn shown_parts(corpus: &Corpus) -> Vec<ShownPart> {
    corpus
        .files
        .iter()
        .enumerate()
        .filter_map(|(file, info)| {
            let held = info.held?;
            // The lines left out after the part: all those left out, less those before it. (A
            // file that held no line at all, past what the load holds, has no next part.)
            let before = u64::from(held.from.line) - 1;
            let after = info.counts.left_out.saturating_sub(before);
            Some(ShownPart {
                file: file as FileId,
                path: info.path.clone(),
                first_line: u64::from(held.from.line),
                last_line: held.file_lines.saturating_sub(after),
                file_lines: held.file_lines,
                shown_bytes: info.size,
                file_size: held.file_size,
                next: held.next,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sessionscope_engine::Loader;

    /// The example's main session, made long enough to be cut, read with `budget` from `start`.
    fn read(bytes: &[u8], budget: u64, start: Start) -> Corpus {
        let mut loader = Loader::new();
        loader.hold_at_most(budget, "why");
        let rest = &bytes[start.offset as usize..];
        let id = loader.add_file_from("big.jsonl", rest.len() as u64, start);
        loader.push(id, rest);
        loader.finish_file(id);
        loader.finish()
    }

    #[test]
    fn each_part_says_its_lines_and_where_the_next_starts() {
        let (_, example) = crate::wire::example_files::FILES[0];
        let bytes: Vec<u8> = example.repeat(40);
        let lines = bytecount(&bytes);
        let budget = bytes.len() as u64 / 3;
        let mut start = Start::BEGINNING;
        let mut shown = Vec::new();
        loop {
            let corpus = read(&bytes, budget, start);
            let parts = shown_parts(&corpus);
            assert_eq!(parts.len(), 1, "the one file is listed");
            let part = parts[0].clone();
            assert_eq!(part.file_lines, lines);
            assert_eq!(part.file_size, bytes.len() as u64);
            assert_eq!(part.first_line, u64::from(start.line));
            assert_eq!(part.is_first(), start.is_beginning());
            assert!(part.shown_bytes <= budget && part.shown_bytes > 0);
            shown.push((part.first_line, part.last_line));
            match part.next {
                Some(next) => {
                    assert_eq!(u64::from(next.line), part.last_line + 1);
                    start = next;
                }
                None => break,
            }
        }
        assert!(shown.len() >= 3, "{shown:?}");
        // The parts follow each other, from the first line to the last.
        assert_eq!(shown.first().map(|s| s.0), Some(1));
        assert_eq!(shown.last().map(|s| s.1), Some(lines));
        assert!(shown.windows(2).all(|w| w[1].0 == w[0].1 + 1), "{shown:?}");
    }

    #[test]
    fn a_file_past_what_the_load_holds_shows_no_line_and_offers_no_part() {
        let (_, example) = crate::wire::example_files::FILES[0];
        let lines = bytecount(example);
        let mut loader = Loader::new();
        loader.hold_at_most(example.len() as u64 / 2, "why");
        for name in ["main.jsonl", "agent-a.jsonl"] {
            let id = loader.add_file(name, example.len() as u64);
            loader.push(id, example);
            loader.finish_file(id);
        }
        let parts = shown_parts(&loader.finish());
        assert_eq!(parts.len(), 2);
        let (main, agent) = (&parts[0], &parts[1]);
        assert!(main.last_line < lines && main.shown_bytes > 0 && main.next.is_some(), "{main:?}");
        assert_eq!(u64::from(main.next.unwrap().line), main.last_line + 1);
        assert_eq!((agent.first_line, agent.last_line, agent.shown_bytes), (1, 0, 0), "no line of it is shown");
        assert_eq!(agent.file_lines, lines);
        assert_eq!(agent.next, None, "and there is no part of it to go to");
    }

    #[test]
    fn a_file_read_whole_is_not_listed() {
        let corpus = Loader::read_all(crate::wire::example_files::FILES.iter().copied());
        assert!(shown_parts(&corpus).is_empty());
    }

    fn bytecount(bytes: &[u8]) -> u64 {
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
    }
}
