//! The resolver's input and output: the `input` block (header, grids,
//! layouts) and the output templates.

use super::*;

impl Resolver {
    pub(super) fn io(
        &mut self,
        items: Option<&Vec<ast::InputItem>>,
        file: &ast::File,
    ) -> Option<Io> {
        let mut cases = None;
        let mut grid: Option<(Option<Num>, Option<Num>, GridForm, Span)> = None;
        let mut fill = None;
        let mut blank = None;
        let mut records = Vec::new();
        let mut lines = 0;
        for it in items.into_iter().flatten() {
            match it {
                ast::InputItem::Cases(c) => {
                    if let Some((_, first)) = cases.replace((c.value.clone(), c.span)) {
                        self.err(RuleError::Repeated {
                            what: "`cases`",
                            span: c.span,
                            first,
                        });
                    }
                    self.end_marker(c);
                }
                ast::InputItem::Header(names) => {
                    lines += 1;
                    if let Some((.., at)) = grid {
                        self.header_after_grid(names, at);
                    }
                }
                ast::InputItem::Fill(sym) => fill = Some((sym.text.clone(), sym.span)),
                ast::InputItem::Records(r) => {
                    if let Some(r) = self.records_item(r, lines, grid.is_some()) {
                        records.push(r);
                    }
                }
                ast::InputItem::Grid {
                    rows,
                    cols,
                    form,
                    blank: b,
                    span,
                } => {
                    blank = b.clone();
                    let r = self.num(rows, Allow::Header, "a grid size");
                    let c = self.num(cols, Allow::Header, "a grid size");
                    let form = form.as_ref().map_or(GridForm::Chars, |f| f.value);
                    if let Some((_, _, _, first)) = grid.replace((r, c, form, *span)) {
                        self.err(RuleError::Repeated {
                            what: "`grid`",
                            span: *span,
                            first,
                        });
                    }
                }
            }
        }
        let cases = cases.map(|c| c.0).unwrap_or(Cases::Single);
        let (rows, cols, form) = match grid {
            Some((r, c, form, _)) => (Some(r?), Some(c?), form),
            None => (None, None, GridForm::Chars),
        };
        self.blank_checks(blank.as_ref(), form, &records);
        if let (Some(_), Some((_, at))) = (&blank, &fill) {
            // No row of a grid not drawn is short: the symbol would fill nothing.
            self.invalid(
                Topic::Input,
                "`fill` for a grid that is not drawn".into(),
                *at,
                "fills nothing",
                "every cell of `grid R x C of ...` holds its symbol: drop `fill`".into(),
            );
        }
        let fill = fill.map(|(f, _)| f);
        if form == GridForm::List && (rows.is_none() || cols.is_none()) {
            let span = items_span(items.map(Vec::as_slice).unwrap_or(&[]));
            self.invalid(
                Topic::Input,
                "a grid given as a list needs its size".into(),
                span,
                "no size",
                "write `grid ROWS x COLS list`".into(),
            );
            return None;
        }
        let slots = self.output_slots(file);
        let [before, solved, unsolved, separator, stopped, after, joiner] = slots;
        self.parts_apart_from_fields();
        let joiner = joiner.map_or(String::new(), |(t, _)| Self::joiner(t));
        self.all_or_no_letters();
        // `{steps}` once printed the cost: where steps have costs it is now
        // another number, said so rather than changed without a word.
        if let Some((t, span)) = &solved
            && self.has_costs
            && self.parts.is_empty()
            && t.uses_steps()
            && !t.mentions(&Num::Cost)
        {
            self.err(RuleError::StepsWithCosts { span: *span });
        }
        let lit = |s: &str| Template(vec![Seg::Lit(s.to_string())]);
        Some(Io {
            cases,
            header: self.header.clone(),
            header_lines: self.header_lines.clone(),
            rows,
            cols,
            form,
            fill,
            before: before.map(|b| b.0),
            solved: solved.map(|s| s.0).unwrap_or_else(|| self.default_solved()),
            unsolved: unsolved.map(|s| s.0).unwrap_or_else(|| lit("-1")),
            separator: separator.map(|s| s.0),
            stopped: stopped.map(|s| s.0),
            after: after.map(|s| s.0),
            joiner,
            blank: blank.map(|b| b.text),
            records,
        })
    }

    /// The output lines, each kind once, by [`OutputKind`].
    fn output_slots(&mut self, file: &ast::File) -> [Option<(Template, Span)>; 7] {
        let mut slots: [Option<(Template, Span)>; 7] = Default::default();
        for d in &file.decls {
            if let ast::Decl::Output(items) = d {
                for it in items {
                    let t = self.template(&it.text, it.kind.value);
                    let slot = &mut slots[it.kind.value as usize];
                    if let Some((_, first)) = slot.replace((t, it.kind.span)) {
                        self.err(RuleError::Repeated {
                            what: "an output line",
                            span: it.kind.span,
                            first,
                        });
                    }
                }
            }
        }
        slots
    }

    /// A header line written after `grid`: header lines are read before
    /// the grid, so the order written would be misread.
    fn header_after_grid(&mut self, names: &[Ident], grid: Span) {
        // `names` is never empty (the grammar's `ident+`).
        let span = names.first().map_or(grid, |n| n.span);
        self.invalid(
            Topic::Input,
            "a header line after the grid".into(),
            span,
            "after `grid`",
            "header lines come before the grid in the input: write `header` before `grid`".into(),
        );
    }

    /// `records k '#' row col from 1`, read after `lines` header lines.
    fn records_item(
        &mut self,
        r: &ast::Records,
        lines: usize,
        after_grid: bool,
    ) -> Option<Records> {
        let count = self.num(&r.count, Allow::Header, "a number of records")?;
        let known: usize = self.header_lines[..lines.min(self.header_lines.len())]
            .iter()
            .sum();
        if let Some(f) = count.last_field()
            && f >= known
        {
            self.invalid(
                Topic::Input,
                format!("`{}` is read after these records", self.header[f]),
                r.count.span(),
                "not read yet",
                "a number of records is a number or header fields of the lines before them".into(),
            );
            return None;
        }
        if !(0..=1).contains(&r.base.value) {
            self.invalid(
                Topic::Input,
                format!("records counted from {}", r.base.value),
                r.base.span,
                "not 0 or 1",
                "write `from 0` when the first row and column are 0, `from 1` when they are 1"
                    .into(),
            );
            return None;
        }
        Some(Records {
            count,
            symbol: r.symbol.text.clone(),
            col_first: r.col_first,
            base: r.base.value,
            after_lines: lines,
            after_grid,
            span: r.span,
        })
    }

    /// A grid that is not drawn needs a size and cells of one form; a
    /// symbol placed on a grid of characters is one character.
    fn blank_checks(&mut self, blank: Option<&ast::Symbol>, form: GridForm, records: &[Records]) {
        if let Some(b) = blank
            && form == GridForm::List
        {
            self.invalid(
                Topic::Input,
                "a grid both listed and not drawn".into(),
                b.span,
                "not drawn",
                "drop `list` (the grid is not in the input) or `of ...` (it is)".into(),
            );
        }
        if form != GridForm::Chars {
            return;
        }
        let one_char = |t: &str| t.chars().count() == 1;
        let placed = blank.map(|b| (b.text.as_str(), b.span));
        let recs = records.iter().map(|r| (r.symbol.as_str(), r.span));
        for (text, span) in placed.into_iter().chain(recs) {
            if !one_char(text) {
                self.invalid(
                    Topic::Input,
                    format!("`{text}` is not one character, on a grid of characters"),
                    span,
                    "not one character",
                    "a grid of characters holds one character a cell: write `grid R x C \
                     tokens` for a grid of tokens"
                        .into(),
                );
            }
        }
    }

    /// A part of a cost named like a header field: `{NAME}` would be read
    /// two ways.
    fn parts_apart_from_fields(&mut self) {
        let Some(i) = self.parts.iter().position(|p| self.header.contains(p)) else {
            return;
        };
        let (p, span) = (self.parts[i].clone(), self.part_spans[i]);
        self.invalid(
            Topic::Cost,
            format!("the part `{p}` is named like a header field"),
            span,
            "two things of one name",
            format!("`{{{p}}}` in an output line could be either: rename the part"),
        );
    }

    /// `{cost}`, or where costs have parts, each of them: `{pushes}
    /// {walks}`.
    fn default_solved(&self) -> Template {
        if self.parts.is_empty() {
            return Template(vec![Seg::Num(Num::Cost)]);
        }
        let mut segs = Vec::new();
        for i in 0..self.parts.len() {
            if i > 0 {
                segs.push(Seg::Lit(" ".into()));
            }
            segs.push(Seg::Num(Num::Part(i)));
        }
        Template(segs)
    }

    /// The joiner's text (`template` made it of text alone).
    fn joiner(t: Template) -> String {
        t.0.into_iter()
            .filter_map(|s| match s {
                Seg::Lit(l) => Some(l),
                _ => None,
            })
            .collect()
    }

    /// Where some chosen moves have letters, all do: a way could not be
    /// written otherwise.
    fn all_or_no_letters(&mut self) {
        let with = self.lettered.iter().find(|l| l.0).map(|l| l.1);
        let without = self.lettered.iter().find(|l| !l.0).map(|l| l.1);
        if let (Some(first), Some(span)) = (with, without) {
            self.err(RuleError::Unlettered { span, first });
        }
    }

    /// A `cases until` line's end marker: values that fit, one per field
    /// of the first header line.
    fn end_marker(&mut self, c: &ast::Spanned<Cases>) {
        if let Cases::UntilValues(vals) = &c.value
            && let Some(v) = vals.iter().find(|v| v.value == i64::MAX)
        {
            // The parser saturates what does not fit.
            self.invalid(
                Topic::Input,
                "this end marker value is too large to be a header value".into(),
                v.span,
                "never matches",
                format!("header values are integers up to {}", i64::MAX - 1),
            );
        }
        let first = self.header_lines.first().copied().unwrap_or(0);
        if let Cases::UntilValues(vals) = &c.value
            && vals.len() != first
        {
            self.invalid(
                Topic::Input,
                format!(
                    "the end marker has {} values but the header has {first}",
                    vals.len(),
                ),
                c.span,
                "compared with the first header line",
                "give one value per field of the first header line".into(),
            );
        }
    }

    pub(super) fn template(&mut self, text: &ast::Spanned<String>, kind: OutputKind) -> Template {
        let mut segs = Vec::new();
        let s = &text.value;
        let mut lit = String::new();
        let mut i = 0;
        let bytes = s.as_bytes();
        while i < s.len() {
            if bytes[i] == b'{'
                && let Some(end) = s[i..].find('}')
            {
                let inner = &s[i + 1..i + end];
                let at = text.span.offset() + i + 1;
                let allow = Allow::Template {
                    cost: kind == OutputKind::Solved,
                };
                let span = (text.span.offset() + i, end + 1).into();
                let seg = if kind == OutputKind::Joiner {
                    self.invalid(
                        Topic::Output,
                        "a placeholder in the joiner".into(),
                        span,
                        "the joiner is text",
                        "`joiner` is the text put between two letters of `{path}`, as it is \
                         (escape a brace: `\\{`)"
                            .into(),
                    );
                    None
                } else if inner.trim() == "path" && !self.header.iter().any(|h| h == "path") {
                    self.path_placeholder(kind, span)
                } else {
                    self.template_num(inner, at, allow, span)
                };
                if let Some(seg) = seg {
                    if !lit.is_empty() {
                        segs.push(Seg::Lit(std::mem::take(&mut lit)));
                    }
                    segs.push(seg);
                }
                i += end + 1;
                continue;
            }
            let ch = s[i..].chars().next().unwrap();
            if ch == '\\' {
                let next = s[i + 1..].chars().next().unwrap_or(' ');
                match escaped(next) {
                    Some(c) => lit.push(c),
                    None => self.invalid(
                        Topic::Output,
                        format!("`\\{next}` is no escape"),
                        (text.span.offset() + i, 1 + next.len_utf8()).into(),
                        "not an escape",
                        "write `\\n` (a new line), `\\t` (a tab), `\\\\`, `\\\"`, `\\{` or `\\}`"
                            .into(),
                    ),
                }
                i += 1 + next.len_utf8();
                continue;
            }
            lit.push(ch);
            i += ch.len_utf8();
        }
        if !lit.is_empty() {
            segs.push(Seg::Lit(lit));
        }
        Template(segs)
    }

    /// A placeholder's number: `{cost}`, `{t - 1}`.
    fn template_num(&mut self, inner: &str, at: usize, allow: Allow, span: Span) -> Option<Seg> {
        match crate::syntax::template_expr(inner, at) {
            Ok(e) => self.num(&e, allow, "a placeholder").map(Seg::Num),
            Err(_) => {
                let mut cands = vec!["case", "steps", "cost", "path"];
                cands.extend(self.header.iter().map(String::as_str));
                let help = did_you_mean(inner, cands, "placeholders");
                self.err(RuleError::UnknownPlaceholder {
                    name: inner.to_string(),
                    span,
                    help: format!(
                        "{help} (a placeholder is a header field, `case`, `steps`, `cost`, \
                         arithmetic on them, or `path`)"
                    ),
                });
                None
            }
        }
    }

    /// `{path}`: the letters of the way, in a `solved` line of a rule file
    /// whose moves have letters.
    fn path_placeholder(&mut self, kind: OutputKind, span: Span) -> Option<Seg> {
        if kind != OutputKind::Solved {
            self.invalid(
                Topic::Output,
                "`{path}` outside a `solved` line".into(),
                span,
                "no way here",
                "the way is known for a solved case: print it in `solved`".into(),
            );
            return None;
        }
        if !self.lettered.iter().any(|l| l.0) {
            self.invalid(
                Topic::Letter,
                "`{path}`, but no move has a letter".into(),
                span,
                "nothing to write the way with",
                "give each move its letter: `move hero: north 'n', east 'e', south 's', west 'w'` \
                 (and `'n' pushing 'N'` for a step that pushes)"
                    .into(),
            );
            return None;
        }
        Some(Seg::Path)
    }

    /// Layout rows of one width, and the size of a grid known now.
    pub(super) fn layout_checks(&mut self, io: &Io) {
        for l in self.layouts.clone() {
            let width = |r: &str| match io.form {
                GridForm::Chars => r.chars().count(),
                _ => r.split_whitespace().count(),
            };
            let w0 = l.rows.first().map_or(0, |r| width(r));
            if l.rows.is_empty() || l.rows.iter().any(|r| width(r) != w0) {
                self.invalid(
                    Topic::Layout,
                    format!("the rows of layout `{}` are not all as wide", l.name),
                    l.span,
                    "rows of different widths",
                    "write one string per row, each with one symbol per column".into(),
                );
                continue;
            }
            let want = (
                io.rows.as_ref().and_then(Num::constant),
                io.cols.as_ref().and_then(Num::constant),
            );
            if let (Some(r), Some(c)) = want
                && (r as usize != l.rows.len() || c as usize != w0)
            {
                self.invalid(
                    Topic::Layout,
                    format!(
                        "layout `{}` is {} x {w0}, but the grid is {r} x {c}",
                        l.name,
                        l.rows.len()
                    ),
                    l.span,
                    "a layout of another size",
                    "a layout is drawn like a map: one row per grid row".into(),
                );
            }
        }
    }
}

pub(super) fn items_span(items: &[ast::InputItem]) -> Span {
    items
        .first()
        .map(|i| match i {
            ast::InputItem::Cases(c) => c.span,
            ast::InputItem::Header(h) => h.first().map(|i| i.span).unwrap_or((0, 0).into()),
            ast::InputItem::Grid { span, .. } => *span,
            ast::InputItem::Fill(s) => s.span,
            ast::InputItem::Records(r) => r.span,
        })
        .unwrap_or((0, 0).into())
}

/// The character an escape in an output line stands for: `\n`, `\t`,
/// `\\`, `\"`, `\{`, `\}`.
fn escaped(c: char) -> Option<char> {
    Some(match c {
        'n' => '\n',
        't' => '\t',
        '\\' | '"' | '{' | '}' => c,
        _ => return None,
    })
}
