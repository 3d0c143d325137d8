//! Damage for `--broken` output: lines a lenient parser must survive and report.

use crate::ids::Uuid;
use crate::rng::Rng;
use crate::session::Sink;

/// Names of the planted defects, as recorded in [`crate::SynthSession::planted`].
pub mod kinds {
    /// A line that is not valid JSON.
    pub const INVALID_JSON: &str = "invalid_json";
    /// Valid JSON that is not an object (`[1,2]`).
    pub const NOT_OBJECT: &str = "not_object";
    /// A `progress` line (a DAG type) without a `uuid`.
    pub const MISSING_UUID: &str = "missing_uuid";
    /// A byte-for-byte copy of an earlier line, so its `uuid` repeats.
    pub const DUPLICATE_UUID: &str = "duplicate_uuid";
    /// An empty line.
    pub const BLANK_LINE: &str = "blank_line";
    /// A line with invalid UTF-8 bytes inside a string value.
    pub const INVALID_UTF8: &str = "invalid_utf8";
    /// A valid line that ends with `\r\n`.
    pub const CRLF: &str = "crlf";
    /// A UTF-8 byte order mark at the start of line 1.
    pub const BOM: &str = "bom";
    /// The last line, cut in the middle of its JSON and without a newline.
    pub const TRUNCATED_LAST_LINE: &str = "truncated_last_line";
}

/// The main file with its defects and where they are.
pub struct Damaged {
    pub bytes: Vec<u8>,
    pub planted: Vec<(u32, &'static str)>,
    /// The 1-based line number of each original line in the damaged file.
    pub new_line_numbers: Vec<u32>,
}

const CRLF_LINES: usize = 4;

/// Rebuilds `main` with one of each defect at random positions.
pub fn plant(main: &Sink, rng: &mut Rng) -> Damaged {
    let count = main.lines.len();
    let mut inserts: Vec<(usize, &'static str, Vec<u8>)> = Vec::new();
    if count >= 2 {
        for kind in [
            kinds::INVALID_JSON,
            kinds::NOT_OBJECT,
            kinds::MISSING_UUID,
            kinds::DUPLICATE_UUID,
            kinds::BLANK_LINE,
            kinds::INVALID_UTF8,
        ] {
            let position = 1 + rng.index(count - 1);
            let Some(bytes) = defect_line(main, rng, kind, position) else {
                continue;
            };
            inserts.push((position, kind, bytes));
        }
    }
    inserts.sort_by_key(|(position, _, _)| *position);

    let mut crlf = vec![false; count];
    for _ in 0..CRLF_LINES.min(count) {
        crlf[rng.index(count)] = true;
    }

    let mut bytes = Vec::with_capacity(main.out.len() + 8_192);
    bytes.extend_from_slice(b"\xEF\xBB\xBF");
    let mut planted = vec![(1, kinds::BOM)];
    let mut new_line_numbers = Vec::with_capacity(count);
    let mut line_number = 0u32;
    let mut pending = inserts.into_iter().peekable();
    for (index, ends_with_crlf) in crlf.iter().enumerate() {
        while let Some((_, kind, line)) = pending.next_if(|(position, _, _)| *position == index) {
            line_number += 1;
            bytes.extend_from_slice(&line);
            bytes.push(b'\n');
            planted.push((line_number, kind));
        }
        line_number += 1;
        new_line_numbers.push(line_number);
        bytes.extend_from_slice(main.line_bytes(index));
        if *ends_with_crlf {
            bytes.extend_from_slice(b"\r\n");
            planted.push((line_number, kinds::CRLF));
        } else {
            bytes.push(b'\n');
        }
    }
    for (_, kind, line) in pending {
        line_number += 1;
        bytes.extend_from_slice(&line);
        bytes.push(b'\n');
        planted.push((line_number, kind));
    }

    // A session still being written ends in the middle of a line.
    if let Some(last_dag) = (0..count).rev().find(|&index| main.lines[index].uuid.is_some()) {
        let line = main.line_bytes(last_dag);
        let mut cut = line.len() / 2;
        // Cut on a character boundary so the fragment itself stays valid UTF-8.
        while cut > 0 && (line[cut] & 0xC0) == 0x80 {
            cut -= 1;
        }
        line_number += 1;
        bytes.extend_from_slice(&line[..cut]);
        planted.push((line_number, kinds::TRUNCATED_LAST_LINE));
    }
    planted.sort_by_key(|(line, _)| *line);
    Damaged { bytes, planted, new_line_numbers }
}

fn nearest_uuid_before(main: &Sink, position: usize) -> Option<Uuid> {
    main.lines[..position].iter().rev().find_map(|line| line.uuid)
}

fn defect_line(main: &Sink, rng: &mut Rng, kind: &'static str, position: usize) -> Option<Vec<u8>> {
    let parent = nearest_uuid_before(main, position)?;
    let fresh = Uuid::random(rng);
    let line = match kind {
        kinds::INVALID_JSON => format!(
            "{{\"parentUuid\":\"{parent}\",\"type\":\"system\",'subtype':'informational',\"content\":\"single quotes are not JSON\"}}"
        )
        .into_bytes(),
        kinds::NOT_OBJECT => b"[1,2]".to_vec(),
        kinds::MISSING_UUID => format!(
            "{{\"parentUuid\":\"{parent}\",\"isSidechain\":false,\"userType\":\"external\",\"type\":\"progress\",\"data\":{{\"type\":\"hook_progress\",\"hookEvent\":\"PostToolUse\",\"hookName\":\"PostToolUse:Read\",\"command\":\"true\"}},\"parentToolUseID\":\"toolu_01MissingUuidLine000000\",\"toolUseID\":\"toolu_01MissingUuidLine000000\",\"timestamp\":\"2026-01-01T00:00:00.000Z\"}}"
        )
        .into_bytes(),
        kinds::DUPLICATE_UUID => {
            let original = (0..position).rev().find(|&index| {
                let line = &main.lines[index];
                line.uuid.is_some()
                    && line.kind == "progress"
                    && !contains(main.line_bytes(index), b"\\ud83d")
            })?;
            main.line_bytes(original).to_vec()
        }
        kinds::BLANK_LINE => Vec::new(),
        kinds::INVALID_UTF8 => {
            let mut line = format!(
                "{{\"parentUuid\":\"{parent}\",\"isSidechain\":false,\"userType\":\"external\",\"type\":\"progress\",\"data\":{{\"type\":\"bash_progress\",\"output\":\"caf"
            )
            .into_bytes();
            line.extend_from_slice(b"\xFF\xFE latin-1 bytes in output");
            line.extend_from_slice(
                format!(
                    "\",\"elapsedTimeSeconds\":1,\"totalLines\":1,\"timeoutMs\":120000}},\"toolUseID\":\"bash-progress-0\",\"parentToolUseID\":\"toolu_01InvalidUtf8Line00000000\",\"uuid\":\"{fresh}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\"}}"
                )
                .as_bytes(),
            );
            line
        }
        _ => return None,
    };
    Some(line)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}
