//! Reading an input file: cut it into cases as the rules' `input` block says.
//! Each case is a header of named integers and a grid of characters or of
//! whitespace-separated tokens; nothing here knows what the symbols mean
//! beyond whether a space can be a cell.
//!
//! Invariant of [`RawCase`]: the header has exactly one value per header
//! field, and the grid has exactly `rows * cols` cells: characters in
//! `cells` for a grid of characters, else tokens in `tokens`.

use crate::ast::{Cases, GridForm};
use crate::error::InputError;
use crate::resolve::{Io, Num, NumEnv};

/// The largest grid side accepted: larger values are taken as a broken header.
pub const MAX_SIDE: i64 = 10_000;

/// One case of an input file, as [`Reader`] cuts it out. Invariant: its
/// grid holds `rows * cols` cells (characters, or tokens), row by row,
/// with each row's offset in the input; its header has a value per field
/// the rule file's `input` block names. Read in the crate.
#[derive(Debug, Clone)]
pub struct RawCase {
    /// 1-based.
    pub(crate) number: usize,
    pub(crate) header: Vec<i64>,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    /// `rows * cols` characters, row by row (a grid of characters).
    pub(crate) cells: Cells,
    /// `rows * cols` tokens, row by row, each with its byte offset and
    /// length in the input (a grid of tokens; empty otherwise).
    pub(crate) tokens: Vec<(String, usize, usize)>,
    /// Byte offset in the input of each row's first character.
    pub(crate) row_offsets: Vec<usize>,
    /// Where the case starts in the input.
    pub(crate) offset: usize,
    /// Where its header set the number of rows, the first row (from 0,
    /// past the first) that reads as a header line would and the report
    /// to give when that row turns out not to be a row: the header said a
    /// row too many, and the next case's header was read as a row.
    pub(crate) header_like: Option<(usize, InputError)>,
    /// The cells `records` placed, each with where the input gives it and
    /// its place in the input's order (the `records` item, then the record).
    pub(crate) placed: hashbrown::HashMap<u32, Placed>,
    /// The grid is drawn in the input (not `grid R x C of '.'`).
    pub(crate) drawn: bool,
}

/// A cell given by a record: where in the input, and its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed {
    pub(crate) at: usize,
    pub(crate) len: usize,
    /// The `records` item (in the rule file's order), then the record.
    pub(crate) order: (u32, u32),
}

/// A record read, not yet placed.
struct Record {
    item: usize,
    k: u32,
    /// Row and column as the input gives them.
    row: i64,
    col: i64,
    at: usize,
    len: usize,
}

/// A grid's characters, row by row: bytes while every one is ASCII (a
/// quarter of the memory of `char`s, on maps of millions of cells), else
/// `char`s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cells {
    Ascii(Vec<u8>),
    Wide(Vec<char>),
}

impl Default for Cells {
    fn default() -> Self {
        Cells::Ascii(Vec::new())
    }
}

impl Cells {
    pub fn with_capacity(n: usize) -> Self {
        Cells::Ascii(Vec::with_capacity(n))
    }

    /// The character of cell `i`.
    #[inline]
    pub fn get(&self, i: usize) -> char {
        match self {
            Cells::Ascii(b) => char::from(b[i]),
            Cells::Wide(c) => c[i],
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Cells::Ascii(b) => b.len(),
            Cells::Wide(c) => c.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes in UTF-8 of cells `range`.
    fn utf8_len(&self, range: std::ops::Range<usize>) -> usize {
        match self {
            Cells::Ascii(_) => range.len(),
            Cells::Wide(c) => c[range].iter().map(|ch| ch.len_utf8()).sum(),
        }
    }

    /// Appends ASCII bytes.
    fn extend_ascii(&mut self, bytes: &[u8]) {
        match self {
            Cells::Ascii(b) => b.extend_from_slice(bytes),
            Cells::Wide(c) => c.extend(bytes.iter().map(|&x| char::from(x))),
        }
    }

    /// Appends characters, widening the grid at the first that is not
    /// ASCII.
    /// Puts `ch` in cell `i`.
    fn set(&mut self, i: usize, ch: char) {
        match self {
            Cells::Ascii(b) if ch.is_ascii() => b[i] = ch as u8,
            Cells::Ascii(b) => {
                let mut wide: Vec<char> = b.iter().map(|&c| c as char).collect();
                wide[i] = ch;
                *self = Cells::Wide(wide);
            }
            Cells::Wide(c) => c[i] = ch,
        }
    }

    fn extend(&mut self, chars: impl IntoIterator<Item = char>) {
        for ch in chars {
            match self {
                Cells::Ascii(b) if ch.is_ascii() => b.push(ch as u8),
                Cells::Ascii(b) => {
                    let mut wide: Vec<char> = Vec::with_capacity(b.capacity());
                    wide.extend(b.iter().map(|&x| char::from(x)));
                    wide.push(ch);
                    *self = Cells::Wide(wide);
                }
                Cells::Wide(c) => c.push(ch),
            }
        }
    }
}

impl RawCase {
    /// The span of one cell in the input file.
    pub fn cell_span(&self, cell: usize) -> miette::SourceSpan {
        if let Some(p) = self.placed.get(&(cell as u32)) {
            return (p.at, p.len.max(1)).into();
        }
        if let Some((_, at, len)) = self.tokens.get(cell) {
            return (*at, (*len).max(1)).into();
        }
        if !self.drawn {
            // A cell of a grid not drawn: the case's start.
            return (self.offset, 1).into();
        }
        let r = cell / self.cols;
        if cell >= self.cells.len() {
            // The grid was given back (`forget_grid`): the row's start.
            let at = self.row_offsets.get(r).or(self.row_offsets.last());
            return (at.copied().unwrap_or(self.offset), 1).into();
        }
        // The row's characters before it are the cells before it.
        let before = self.cells.utf8_len(r * self.cols..cell);
        (
            self.row_offsets[r] + before,
            self.cells.get(cell).len_utf8(),
        )
            .into()
    }

    /// Gives back the map's characters (or tokens): for a case that is
    /// grounded and whose map nothing will draw, so that a large map's
    /// characters are not held through its search (2.25 MB of a 1,500 x
    /// 1,500 map). Reports about its cells are made while grounding; a
    /// cell's span is then its row's start.
    pub fn forget_grid(&mut self) {
        self.cells = Cells::default();
        self.tokens = Vec::new();
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        self.rows * self.cols
    }

    /// No cells (never, for a case read).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The span of the whole case's header and grid.
    pub fn span(&self) -> miette::SourceSpan {
        let end = self.row_offsets.last().copied().unwrap_or(self.offset);
        (self.offset, end.saturating_sub(self.offset).max(1)).into()
    }
}

/// Cuts an input text into cases, one at a time, so that the answers of the
/// cases before a broken one can still be printed.
pub struct Reader<'a> {
    io: &'a Io,
    src: &'a str,
    /// Byte offset of the next unread line.
    pos: usize,
    /// Cases read so far.
    read: usize,
    /// Cases announced by a counted input's first line.
    announced: Option<(usize, miette::SourceSpan)>,
    space_is_cell: bool,
    done: bool,
    /// `Some`: the input is one bare grid, and these are the header values
    /// given outside it (`--set n=2`), one per header field.
    bare: Option<Vec<Option<i64>>>,
    /// The tokens of a line of records that the records before did not
    /// take: the next `records` item's first.
    leftover: Vec<(String, usize, usize)>,
    /// Where the last header line read is: a count of records it gives
    /// is reported there.
    last_header: miette::SourceSpan,
}

struct Line<'a> {
    text: &'a str,
    offset: usize,
}

impl<'a> Reader<'a> {
    /// `bare`: the input is one grid with no header; header fields come from
    /// there, and grid sizes not given there are taken from the grid.
    pub fn new(
        io: &'a Io,
        src: &'a str,
        space_is_cell: bool,
        bare: Option<Vec<Option<i64>>>,
    ) -> Self {
        Reader {
            io,
            src,
            pos: 0,
            read: 0,
            announced: None,
            space_is_cell,
            done: false,
            bare,
            leftover: Vec::new(),
            last_header: (0, 1).into(),
        }
    }

    fn next_line(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.src.len() {
            return None;
        }
        let rest = &self.src[self.pos..];
        let (text, len) = match rest.find('\n') {
            Some(i) => (&rest[..i], i + 1),
            None => (rest, rest.len()),
        };
        let line = Line {
            text: text.strip_suffix('\r').unwrap_or(text),
            offset: self.pos,
        };
        self.pos += len;
        Some(line)
    }

    fn peek_line(&mut self) -> Option<Line<'a>> {
        let save = self.pos;
        let l = self.next_line();
        self.pos = save;
        l
    }

    /// The next line with something other than blanks on it.
    fn next_nonblank(&mut self) -> Option<Line<'a>> {
        loop {
            let l = self.next_line()?;
            if !l.text.trim().is_empty() {
                return Some(l);
            }
        }
    }

    /// Where the input ends: its last visible character (a span past the
    /// end would not be shown).
    fn eof_span(&self) -> miette::SourceSpan {
        let trimmed = self.src.trim_end();
        match trimmed.char_indices().next_back() {
            Some((i, c)) => (i, c.len_utf8()).into(),
            None => (0, 0).into(),
        }
    }

    fn ints(&self, line: &Line<'_>, want: usize, what: &str) -> Result<Vec<i64>, InputError> {
        let mut vals = Vec::new();
        let mut search = 0;
        for tok in line.text.split_whitespace() {
            let at = line.text[search..].find(tok).unwrap() + search;
            search = at + tok.len();
            let span: miette::SourceSpan = (line.offset + at, tok.len()).into();
            match tok.parse::<i64>() {
                Ok(v) => vals.push(v),
                Err(_) => {
                    return Err(InputError::Header {
                        message: format!(
                            "{what} holds `{}`, which is not an integer",
                            crate::error::raw(tok)
                        ),
                        span,
                        label: "not an integer".into(),
                        help: format!("{what} is {}", self.describe_header(want)),
                    });
                }
            }
        }
        if vals.len() != want {
            let few = vals.len() < want;
            return Err(InputError::Header {
                message: format!("{what} has {} values, expected {want}", vals.len()),
                span: (line.offset, line.text.len().max(1)).into(),
                label: if few {
                    "too few values"
                } else {
                    "too many values"
                }
                .into(),
                help: format!("{what} is {}", self.describe_header(want)),
            });
        }
        Ok(vals)
    }

    fn describe_header(&self, want: usize) -> String {
        if want == self.io.header.len() && want > 0 && self.io.header_lines.len() == 1 {
            format!("the integers `{}` on one line", self.io.header.join(" "))
        } else if want > 0 && self.io.header_lines.len() > 1 {
            let mut at = 0;
            let lines: Vec<String> = self
                .io
                .header_lines
                .iter()
                .map(|&n| {
                    let l = format!("`{}`", self.io.header[at..at + n].join(" "));
                    at += n;
                    l
                })
                .collect();
            format!("the integers {}, one line each", lines.join(", then "))
        } else {
            "one integer: the number of cases".to_string()
        }
    }

    /// The byte offset of the next unread line.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The number of the case being read (1-based).
    pub fn case_number(&self) -> usize {
        self.read + 1
    }

    /// The next case, `None` at the end of the input, or the problem that
    /// stops reading (after which the reader returns `None`).
    pub fn next_case(&mut self) -> Option<Result<RawCase, InputError>> {
        if self.done {
            return None;
        }
        let r = self.read_case();
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }

    fn read_case(&mut self) -> Option<Result<RawCase, InputError>> {
        if let Some(given) = self.bare.clone() {
            return self.bare_case(given);
        }
        if self.io.cases == Cases::Counted && self.announced.is_none() {
            let Some(line) = self.next_nonblank() else {
                return Some(Err(InputError::Truncated {
                    case: 1,
                    missing: "the number of cases".into(),
                    span: self.eof_span(),
                    size: None,
                    size_label: String::new(),
                    help: "a counted input starts with a line holding the number of cases".into(),
                }));
            };
            let n = match self.ints(&line, 1, "the first line") {
                Ok(v) => v[0],
                Err(e) => return Some(Err(e)),
            };
            let span: miette::SourceSpan = (line.offset, line.text.len()).into();
            if !(0..=1_000_000).contains(&n) {
                return Some(Err(InputError::SizeRange {
                    message: format!("the number of cases, {n}, is out of range"),
                    span,
                    label: "number of cases".into(),
                    help: "expected a count from 0 to 1000000".into(),
                }));
            }
            self.announced = Some((n as usize, span));
        }
        let at_end = self.peek_nonblank_is_none();
        match self.io.cases {
            Cases::Counted => {
                let (n, span) = self.announced.unwrap();
                if self.read == n {
                    // More after the cases announced is a miscount.
                    if let Some(extra) = self.next_nonblank() {
                        return Some(Err(InputError::MoreCases {
                            announced: n,
                            span: (extra.offset, extra.text.len().clamp(1, 80)).into(),
                            count: span,
                        }));
                    }
                    return None;
                }
                if at_end {
                    return Some(Err(InputError::FewerCases {
                        announced: n,
                        given: self.read,
                        span: self.eof_span(),
                        count: span,
                    }));
                }
            }
            Cases::Single if self.read == 1 => return None,
            Cases::UntilEof | Cases::UntilValues(_) if at_end => {
                // A missing end marker is forgiven: the input simply ends.
                return None;
            }
            _ => {}
        }
        let header_len = self.io.header.len();
        let start = self.pos;
        let number = self.read + 1;
        let mut header: Vec<Option<i64>> = Vec::with_capacity(header_len);
        let mut records = Vec::new();
        for (i, &n) in self.io.header_lines.iter().enumerate() {
            if let Err(e) = self.records_at(number, (i, false), &header, &mut records) {
                return Some(Err(e));
            }
            let Some(line) = self.next_nonblank() else {
                return Some(Err(InputError::Truncated {
                    case: number,
                    missing: "the header line".into(),
                    span: self.eof_span(),
                    size: None,
                    size_label: String::new(),
                    help: self.describe_header(header_len),
                }));
            };
            self.last_header = (line.offset, line.text.len().max(1)).into();
            match self.ints(&line, n, "the header line") {
                Ok(v) => header.extend(v.into_iter().map(Some)),
                Err(e) => return Some(Err(e)),
            }
            // The end marker is a first header line.
            if i == 0
                && let Cases::UntilValues(end) = &self.io.cases
                && end.len() == header.len()
                && end.iter().zip(&header).all(|(a, b)| Some(a.value) == *b)
            {
                return None;
            }
        }
        let lines = self.io.header_lines.len();
        let read = self
            .records_at(number, (lines, false), &header, &mut records)
            .and_then(|()| self.read_grid_case(header.clone(), start))
            .and_then(|mut case| {
                let placed = self
                    .records_at(number, (lines, true), &header, &mut records)
                    .and_then(|()| self.place(&mut case, records));
                if placed.is_err() {
                    // The case was counted read when its grid was.
                    self.read -= 1;
                }
                placed.map(|()| case)
            });
        Some(read)
    }

    /// Reads the records of every `records` item written after `lines`
    /// header lines (and after the grid, or before it).
    fn records_at(
        &mut self,
        number: usize,
        (lines, after_grid): (usize, bool),
        header: &[Option<i64>],
        out: &mut Vec<Record>,
    ) -> Result<(), InputError> {
        let io = self.io;
        for (item, spec) in io.records.iter().enumerate() {
            if spec.after_lines != lines || spec.after_grid != after_grid {
                continue;
            }
            // The header so far holds every field the count reads (the
            // resolver checked it).
            let n = self.resolve_size(Some(&spec.count), header).unwrap_or(-1);
            if !(0..=MAX_SIDE * MAX_SIDE).contains(&n) {
                return Err(InputError::SizeRange {
                    message: format!("case {number} asks for {n} records"),
                    span: self.last_header,
                    label: format!("gives {n} `{}` records", spec.symbol),
                    help: format!("a case has from 0 to {} records", MAX_SIDE * MAX_SIDE),
                });
            }
            let ints = self.record_ints(number, 2 * n as usize)?;
            for (k, pair) in ints.chunks(2).enumerate() {
                let ((a, at, _), (b, at2, len2)) = (pair[0], pair[1]);
                let (row, col) = if spec.col_first { (b, a) } else { (a, b) };
                out.push(Record {
                    item,
                    k: k as u32,
                    row,
                    col,
                    at,
                    len: at2 + len2 - at,
                });
            }
        }
        if let (Some(first), Some(last)) = (self.leftover.first(), self.leftover.last()) {
            let span = (first.1, last.1 + last.2 - first.1).into();
            return Err(InputError::Record {
                message: format!("case {number} has more numbers here than its records"),
                span,
                label: format!("{} more", self.leftover.len()),
                help: "each record is two integers, a cell's row and column: check the \
                       number of records"
                    .into(),
            });
        }
        Ok(())
    }

    /// `want` integers over any number of lines, each with its offset
    /// and length.
    fn record_ints(
        &mut self,
        number: usize,
        want: usize,
    ) -> Result<Vec<(i64, usize, usize)>, InputError> {
        // A count is checked against no size yet: room is made as the
        // records come.
        let mut got = Vec::with_capacity(want.min(1 << 12));
        let mut toks = std::mem::take(&mut self.leftover);
        loop {
            let take = toks.len().min(want - got.len());
            for (t, at, len) in toks.drain(..take) {
                let Ok(v) = t.parse::<i64>() else {
                    return Err(InputError::Record {
                        message: format!("case {number}: a record holds `{t}`"),
                        span: (at, len.max(1)).into(),
                        label: "not an integer".into(),
                        help: "each record is two integers, a cell's row and column".into(),
                    });
                };
                got.push((v, at, len));
            }
            if got.len() == want {
                // What the line holds past these records is the next's.
                self.leftover = toks;
                break;
            }
            let Some(line) = self.next_nonblank() else {
                return Err(InputError::Truncated {
                    case: number,
                    missing: format!(
                        "{} of its {} records are missing",
                        (want - got.len()).div_ceil(2),
                        want / 2
                    ),
                    span: self.eof_span(),
                    size: None,
                    size_label: String::new(),
                    help: "each record is two integers, a cell's row and column".into(),
                });
            };
            toks = Self::tokens_of(&line);
        }
        Ok(got)
    }

    /// Puts each record's symbol on its cell.
    fn place(&self, case: &mut RawCase, records: Vec<Record>) -> Result<(), InputError> {
        for r in records {
            let spec = &self.io.records[r.item];
            let (row, col) = (
                r.row.saturating_sub(spec.base),
                r.col.saturating_sub(spec.base),
            );
            let span: miette::SourceSpan = (r.at, r.len.max(1)).into();
            if !(0..case.rows as i64).contains(&row) || !(0..case.cols as i64).contains(&col) {
                let (first, second) = if spec.col_first {
                    ("column", "row")
                } else {
                    ("row", "column")
                };
                return Err(InputError::Record {
                    message: format!(
                        "case {}: record {} of the `{}` records is off the grid",
                        case.number,
                        r.k + 1,
                        spec.symbol
                    ),
                    span,
                    label: "off the grid".into(),
                    help: format!(
                        "the grid is {} x {}, and a record gives its {first} then its {second}, \
                         counted from {}",
                        case.rows, case.cols, spec.base
                    ),
                });
            }
            let cell = row as usize * case.cols + col as usize;
            let holds = |c: &RawCase| match c.tokens.get(cell) {
                Some(t) => t.0.clone(),
                None => c.cells.get(cell).to_string(),
            };
            if case.placed.contains_key(&(cell as u32)) {
                if holds(case) == spec.symbol {
                    continue;
                }
                return Err(InputError::Record {
                    message: format!("case {}: two records give one cell", case.number),
                    span,
                    label: format!("`{}` here, and `{}` before", spec.symbol, holds(case)),
                    help: "each cell holds one thing: check the records".into(),
                });
            }
            match case.tokens.get_mut(cell) {
                Some(t) => *t = (spec.symbol.clone(), r.at, r.len),
                None => case
                    .cells
                    .set(cell, spec.symbol.chars().next().unwrap_or(' ')),
            }
            let order = (r.item as u32, r.k);
            case.placed.insert(
                cell as u32,
                Placed {
                    at: r.at,
                    len: r.len,
                    order,
                },
            );
        }
        Ok(())
    }

    /// The one case of a bare map: its grid, the header given outside.
    fn bare_case(&mut self, given: Vec<Option<i64>>) -> Option<Result<RawCase, InputError>> {
        if self.read > 0 {
            return None;
        }
        if !self.io.records.is_empty() || self.io.blank.is_some() {
            self.read += 1;
            return Some(Err(InputError::BareHeader {
                message: "a bare map cannot give this puzzle's cells".into(),
                span: (0, self.src.len().clamp(1, 80)).into(),
                label: "read as a bare map".into(),
                help: "the rule file's `input` places cells by `records` or does not draw \
                       the grid: give the whole input, without `--map` or `--set`"
                    .into(),
            }));
        }
        Some(self.read_grid_case(given, 0))
    }

    fn peek_nonblank_is_none(&mut self) -> bool {
        let save = self.pos;
        let r = self.next_nonblank().is_none();
        self.pos = save;
        r
    }

    /// A grid size or a number of records, if the header values it needs
    /// are known (`-1` where its arithmetic fails).
    fn resolve_size(&self, s: Option<&Num>, header: &[Option<i64>]) -> Option<i64> {
        let s = s?;
        if let Num::Field(i) = s {
            return header.get(*i).copied().flatten();
        }
        let known: Option<Vec<i64>> = header.iter().copied().collect();
        let env = NumEnv {
            field: &|_| None,
            parts: &[],
            header: &known?,
            count: &|_| 0,
            case: 0,
            cost: None,
            steps: None,
        };
        Some(s.eval(&env).unwrap_or(-1))
    }

    /// Reads a grid. Header values still unknown (`None`, only in a bare
    /// map) are grid sizes taken from the grid itself.
    fn read_grid_case(
        &mut self,
        header: Vec<Option<i64>>,
        start: usize,
    ) -> Result<RawCase, InputError> {
        let number = self.read + 1;
        let header_span: miette::SourceSpan = (start, self.pos.saturating_sub(start).max(1)).into();
        let rows = self.resolve_size(self.io.rows.as_ref(), &header);
        let cols = self.resolve_size(self.io.cols.as_ref(), &header);
        sizes_in_range(number, (rows, cols), header_span)?;
        if let Some(b) = &self.io.blank {
            let (rows, cols) = (
                rows.expect("a grid not drawn has its size") as usize,
                cols.expect("a grid not drawn has its size") as usize,
            );
            return Ok(self.blank(number, header, start, (rows, cols), b));
        }
        if self.io.form == GridForm::List {
            let (rows, cols) = (
                rows.expect("a list has its size") as usize,
                cols.expect("a list has its size") as usize,
            );
            return self.read_list(number, header, start, rows, cols);
        }
        let want_rows = rows.map(|r| r as usize);
        let lines = self.grid_lines(cols, want_rows);
        // The header lines, without the blank lines before them.
        let header_text = &self.src[start..start + header_span.len()];
        let lead = header_text.len() - header_text.trim_start().len();
        let header_at: miette::SourceSpan = (start + lead, header_text.trim().len().max(1)).into();
        if let Some(r) = want_rows
            && lines.len() < r
        {
            return Err(InputError::Truncated {
                case: number,
                missing: format!("{} of its {r} grid rows are missing", r - lines.len()),
                span: self.eof_span(),
                size: (!self.io.header_lines.is_empty()).then_some(header_at),
                size_label: format!("the header says {r} rows"),
                help: "each case's grid has as many lines as the header says".into(),
            });
        }
        if lines.is_empty() {
            return Err(InputError::Truncated {
                case: number,
                missing: "the grid is missing".into(),
                span: self.eof_span(),
                size: None,
                size_label: String::new(),
                help: "a case needs at least one grid row".into(),
            });
        }
        let header_like = self.header_like(number, want_rows, &lines, header_at);
        if self.io.form == GridForm::Tokens {
            return self.read_tokens(number, header, start, &lines, cols.map(|c| c as usize));
        }
        let cols = match cols {
            Some(c) => c as usize,
            None => self.trimmed(lines[0].text).chars().count(),
        };
        let fill = self.io.fill.as_ref().and_then(|f| f.chars().next());
        let mut cells = Cells::with_capacity(lines.len() * cols);
        let mut row_offsets = Vec::with_capacity(lines.len());
        for (i, l) in lines.iter().enumerate() {
            // An ASCII row (the usual) is counted and copied by bytes.
            let ascii = l.text.is_ascii();
            let count = |t: &str| if ascii { t.len() } else { t.chars().count() };
            let n = count(l.text);
            let mut kept = count(self.trimmed(l.text));
            if kept > cols && self.space_is_cell {
                // Even where a space is a cell, blanks past the last column
                // are no cells: the row is cut there.
                let at = l
                    .text
                    .char_indices()
                    .nth(cols)
                    .map_or(l.text.len(), |(b, _)| b);
                if l.text[at..].trim().is_empty() {
                    kept = cols;
                }
            }
            if let Some(f) = fill
                && kept < cols
            {
                // A short row, filled with the declared symbol.
                cells.extend(self.trimmed(l.text).chars());
                cells.extend(std::iter::repeat_n(f, cols - kept));
                row_offsets.push(l.offset);
                continue;
            }
            if n < cols || kept > cols {
                if let Some((j, e)) = &header_like
                    && i == *j
                {
                    return Err(e.clone());
                }
                return Err(self.row_width(number, i, l, cols, (n, kept)));
            }
            if ascii {
                cells.extend_ascii(&l.text.as_bytes()[..cols]);
            } else {
                cells.extend(l.text.chars().take(cols));
            }
            row_offsets.push(l.offset);
        }
        let mut case = self.case(
            number,
            header,
            start,
            lines.len(),
            cols,
            cells,
            Vec::new(),
            row_offsets,
        );
        case.header_like = header_like;
        Ok(case)
    }

    /// A grid not drawn: every cell holds `symbol`.
    fn blank(
        &mut self,
        number: usize,
        header: Vec<Option<i64>>,
        start: usize,
        (rows, cols): (usize, usize),
        symbol: &str,
    ) -> RawCase {
        let n = rows * cols;
        let (cells, tokens) = if self.io.form == GridForm::Tokens {
            (Cells::default(), vec![(symbol.to_string(), start, 0); n])
        } else {
            let mut cells = Cells::with_capacity(n);
            cells.extend(std::iter::repeat_n(symbol.chars().next().unwrap_or(' '), n));
            (cells, Vec::new())
        };
        let mut case = self.case(
            number,
            header,
            start,
            rows,
            cols,
            cells,
            tokens,
            vec![start; rows],
        );
        case.drawn = false;
        case
    }

    /// The lines of a grid: blank lines before it skipped (they separate
    /// cases), then `want_rows` lines, or with no row count, lines up to a
    /// blank one.
    fn grid_lines(&mut self, cols: Option<i64>, want_rows: Option<usize>) -> Vec<Line<'a>> {
        // Blank lines before the grid separate cases; they are not rows,
        // unless a space is a cell and the row is made of spaces.
        let mut lines: Vec<Line<'a>> = Vec::new();
        loop {
            match self.peek_line() {
                Some(l) if lines.is_empty() && self.is_separator(&l, cols) => {
                    self.next_line();
                }
                _ => break,
            }
        }
        loop {
            if want_rows.is_some_and(|r| lines.len() == r) {
                break;
            }
            match self.peek_line() {
                None => break,
                Some(l) if want_rows.is_none() && l.text.trim().is_empty() => break,
                Some(_) => lines.push(self.next_line().unwrap()),
            }
        }
        lines
    }

    /// A row that reads as the first header line would: where the header
    /// fixed the rows and the grid is of characters, the next case's
    /// header, if that row is found not to be a row.
    fn header_like(
        &self,
        number: usize,
        want_rows: Option<usize>,
        lines: &[Line<'a>],
        header_at: miette::SourceSpan,
    ) -> Option<(usize, InputError)> {
        match (want_rows, self.io.header_lines.first()) {
            (Some(r), Some(&n)) if self.io.form == GridForm::Chars && r > 1 => (1..lines.len())
                .find(|&j| reads_as_ints(lines[j].text, n))
                .map(|j| {
                    let l = &lines[j];
                    let e = InputError::HeaderRows {
                        case: number,
                        rows: r,
                        given_rows: if j == 1 {
                            "1 row".into()
                        } else {
                            format!("{j} rows")
                        },
                        next: number + 1,
                        line: self.src[..l.offset].matches('\n').count() + 1,
                        span: (l.offset, l.text.len().max(1)).into(),
                        row: j + 1,
                        header: header_at,
                        form: self.io.header.join(" "),
                    };
                    (j, e)
                }),
            _ => None,
        }
    }

    /// A row of `n` characters (`kept` without trailing blanks) that is not
    /// `cols` wide.
    fn row_width(
        &self,
        number: usize,
        i: usize,
        l: &Line<'a>,
        cols: usize,
        (n, kept): (usize, usize),
    ) -> InputError {
        let got = if n < cols { n } else { kept };
        let short = got < cols;
        // A short row: the whole row; a long one: from the first
        // character too many (a few of them).
        let span = if short {
            (l.offset, l.text.len().max(1))
        } else {
            let at = l.text.char_indices().nth(cols).map_or(0, |(b, _)| b);
            let len = l.text[at..].chars().take(8).map(char::len_utf8).sum();
            (l.offset + at, len)
        };
        let help = if let Some(c) = l.text.chars().find(|&c| crate::error::is_hidden_control(c)) {
            format!(
                "the row holds the control character {c:?}, shown as `{}`: every \
                     row of this case has {cols} characters",
                crate::error::CONTROL_SHOWN
            )
        } else if self.space_is_cell && short {
            "a space is a cell in this puzzle: keep trailing spaces in the row".into()
        } else {
            format!("every row of this case has {cols} characters")
        };
        InputError::row_width(
            (number, i + 1),
            "characters",
            (got, cols),
            span.into(),
            help,
        )
    }

    /// A case read: the header completed by the grid's own size where a
    /// bare map left it open.
    #[allow(clippy::too_many_arguments)]
    fn case(
        &mut self,
        number: usize,
        mut header: Vec<Option<i64>>,
        start: usize,
        rows: usize,
        cols: usize,
        cells: Cells,
        tokens: Vec<(String, usize, usize)>,
        row_offsets: Vec<usize>,
    ) -> RawCase {
        self.read += 1;
        for (size, n) in [(&self.io.rows, rows), (&self.io.cols, cols)] {
            if let Some(Num::Field(i)) = size {
                header[*i].get_or_insert(n as i64);
            }
        }
        RawCase {
            number,
            header: header.into_iter().map(|v| v.unwrap_or(0)).collect(),
            rows,
            cols,
            cells,
            tokens,
            row_offsets,
            offset: start,
            header_like: None,
            placed: hashbrown::HashMap::new(),
            drawn: true,
        }
    }

    /// The tokens of a line, with their byte offsets in the input.
    fn tokens_of(line: &Line<'_>) -> Vec<(String, usize, usize)> {
        let mut out = Vec::new();
        let mut search = 0;
        for tok in line.text.split_whitespace() {
            let at = line.text[search..].find(tok).expect("a token of the line") + search;
            search = at + tok.len();
            out.push((tok.to_string(), line.offset + at, tok.len()));
        }
        out
    }

    /// A grid of tokens, a line a row.
    fn read_tokens(
        &mut self,
        number: usize,
        header: Vec<Option<i64>>,
        start: usize,
        lines: &[Line<'a>],
        cols: Option<usize>,
    ) -> Result<RawCase, InputError> {
        let cols = cols.unwrap_or_else(|| Self::tokens_of(&lines[0]).len());
        let mut tokens = Vec::with_capacity(lines.len() * cols);
        let mut row_offsets = Vec::with_capacity(lines.len());
        for (i, l) in lines.iter().enumerate() {
            let mut row = Self::tokens_of(l);
            if row.len() < cols
                && let Some(f) = &self.io.fill
            {
                let end = l.offset + l.text.len();
                row.resize(cols, (f.clone(), end, 0));
            }
            if row.len() != cols {
                let short = row.len() < cols;
                let span = match row.get(cols) {
                    Some(&(_, at, len)) if !short => (at, len),
                    _ => (l.offset, l.text.len().max(1)),
                };
                return Err(InputError::row_width(
                    (number, i + 1),
                    "tokens",
                    (row.len(), cols),
                    span.into(),
                    format!("every row of this case has {cols} tokens"),
                ));
            }
            tokens.extend(row);
            row_offsets.push(l.offset);
        }
        let rows = lines.len();
        Ok(self.case(
            number,
            header,
            start,
            rows,
            cols,
            Cells::default(),
            tokens,
            row_offsets,
        ))
    }

    /// A grid given as `rows * cols` tokens over any number of lines.
    fn read_list(
        &mut self,
        number: usize,
        header: Vec<Option<i64>>,
        start: usize,
        rows: usize,
        cols: usize,
    ) -> Result<RawCase, InputError> {
        let want = rows * cols;
        let mut tokens = Vec::with_capacity(want);
        let mut row_offsets = Vec::new();
        while tokens.len() < want {
            let Some(line) = self.next_nonblank() else {
                return Err(InputError::Truncated {
                    case: number,
                    missing: format!("{} of its {want} cells are missing", want - tokens.len()),
                    span: self.eof_span(),
                    size: None,
                    size_label: String::new(),
                    help: format!(
                        "a board of {rows} x {cols} is {want} tokens, row by row, on any number of lines"
                    ),
                });
            };
            let got = Self::tokens_of(&line);
            if tokens.len() + got.len() > want {
                return Err(InputError::RowWidth {
                    case: number,
                    row: tokens.len() / cols + 1,
                    unit: "tokens",
                    got: tokens.len() + got.len(),
                    want,
                    span: (line.offset, line.text.len().max(1)).into(),
                    label: "more tokens than the board has cells".into(),
                    help: format!("a board of {rows} x {cols} is {want} tokens"),
                });
            }
            row_offsets.push(line.offset);
            tokens.extend(got);
        }
        Ok(self.case(
            number,
            header,
            start,
            rows,
            cols,
            Cells::default(),
            tokens,
            row_offsets,
        ))
    }

    /// A row without the trailing blanks that cannot be cells.
    fn trimmed<'t>(&self, text: &'t str) -> &'t str {
        if self.space_is_cell {
            text.trim_end_matches(['\t', '\r'])
        } else {
            text.trim_end()
        }
    }

    fn is_separator(&self, l: &Line<'_>, cols: Option<i64>) -> bool {
        if l.text.is_empty() {
            return true;
        }
        let blank = l.text.trim().is_empty();
        blank && (!self.space_is_cell || cols.is_some_and(|c| (l.text.chars().count() as i64) < c))
    }
}

/// Whether `text` is `n` integers and nothing else (a grid row that reads
/// as a header line would), without building the report
/// [`Reader::ints`] makes: this is asked of every row.
fn reads_as_ints(text: &str, n: usize) -> bool {
    let mut k = 0;
    for tok in text.split_whitespace() {
        if k == n || tok.parse::<i64>().is_err() {
            return false;
        }
        k += 1;
    }
    k == n
}

/// A case's grid sizes, where known, are 1 to [`MAX_SIDE`].
fn sizes_in_range(
    number: usize,
    (rows, cols): (Option<i64>, Option<i64>),
    header_span: miette::SourceSpan,
) -> Result<(), InputError> {
    for (v, what) in [(rows, "rows"), (cols, "columns")] {
        if let Some(v) = v
            && !(1..=MAX_SIDE).contains(&v)
        {
            return Err(InputError::SizeRange {
                message: format!("case {number} asks for {v} {what}"),
                span: header_span,
                label: format!("{what} out of range"),
                help: format!("a grid has from 1 to {MAX_SIDE} {what}"),
            });
        }
    }
    Ok(())
}
