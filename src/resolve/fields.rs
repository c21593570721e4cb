//! Fields: a number per cell of a map, worked out once per map
//! (`field fire = distance from fire through floor`), read at an agent's
//! cell in conditions (`fire(hero) > steps`).

use super::*;
use crate::ast::Dir;

/// `field NAME = distance from TILE through TILE, ... by DIR ... else N`:
/// per map, each cell's fewest steps from the nearest cell of `from`,
/// crossing only cells of `through`; `otherwise` where it never reaches.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    /// Where the distance is 0.
    pub from: (TileId, ValueSel),
    /// The cells it crosses; empty: every cell that is not solid.
    pub through: Vec<(TileId, ValueSel)>,
    /// The steps it takes (the four compass directions unless given).
    pub by: Vec<Dir>,
    /// A cell's number where the distance never reaches.
    pub otherwise: Num,
    /// Some condition reads it.
    pub read: bool,
    pub span: Span,
}

impl Resolver {
    /// `field NAME = distance from PATTERN ...`.
    pub(super) fn field_decl(&mut self, f: &ast::FieldDecl) {
        let from = self.field_tile(&f.from);
        let through: Vec<_> = f.through.iter().map(|p| self.field_tile(p)).collect();
        let mut by: Vec<Dir> = Vec::new();
        for &(d, span) in &f.by {
            if by.contains(&d) {
                self.invalid(
                    Topic::Field,
                    "this direction is given twice".into(),
                    span,
                    "again",
                    "name each direction a field's distance steps by once".into(),
                );
            }
            by.push(d);
        }
        if by.is_empty() {
            by = ["north", "east", "south", "west"]
                .iter()
                .filter_map(|w| Dir::named(w))
                .collect();
        }
        let otherwise = match &f.otherwise {
            Some(e) => self.num(e, Allow::Map, "a field's number where it never reaches"),
            None => Some(Num::Lit(-1)),
        };
        if let Some(first) = self.fields.iter().find(|x| x.name == f.name.name) {
            let first = first.span;
            self.err(RuleError::Repeated {
                what: "a field of this name",
                span: f.name.span,
                first,
            });
            return;
        }
        let (Some(from), Some(through), Some(otherwise)) = (
            from,
            through.into_iter().collect::<Option<Vec<_>>>(),
            otherwise,
        ) else {
            // Reported; its readers are not told again that it is unknown.
            self.broken_fields.push(f.name.name.clone());
            return;
        };
        self.fields.push(Field {
            name: f.name.name.clone(),
            from,
            through,
            by,
            otherwise,
            read: false,
            span: f.name.span,
        });
    }

    /// A field no condition reads changes nothing: said, since a misspelt
    /// reader is more likely than a field meant to be idle.
    pub(super) fn field_warnings(&mut self) {
        let idle: Vec<(String, Span)> = (self.fields.iter())
            .filter(|f| !f.read)
            .map(|f| (f.name.clone(), f.span))
            .collect();
        for (name, span) in idle {
            self.errors.push(RuleError::Never {
                message: format!("field `{name}` is never read"),
                span,
                label: "no condition reads it".into(),
                help: format!(
                    "read it at an agent in a condition (`forbid {name}(hero) <= steps`), or \
                     remove it"
                ),
            });
        }
    }

    /// A tile of a field's `from` or `through`: all its cells, or those of
    /// one value; a variable binds nothing here.
    fn field_tile(&mut self, p: &ast::Pattern) -> Option<(TileId, ValueSel)> {
        let (tile, value, _) = self.pattern(p)?;
        if value == ValueSel::Bind {
            let arg = p.arg.as_ref().map_or(p.span, |a| a.span);
            self.invalid(
                Topic::Field,
                "a field's tile binds no variable".into(),
                arg,
                "nothing reads it",
                format!(
                    "write `{}` for every cell of the tile, or `{}(VALUE)` for the cells of \
                     one value",
                    p.tile.name, p.tile.name
                ),
            );
            return None;
        }
        Some((tile, value))
    }

    /// `FIELD(AGENT)`: a field's number on the cell a single agent stands
    /// on (in conditions only).
    pub(super) fn field_at(
        &mut self,
        field: &Ident,
        who: &Ident,
        span: Span,
        allow: Allow,
    ) -> Option<Num> {
        let f = self.fields.iter().position(|f| f.name == field.name);
        if f.is_none() && !self.broken_fields.contains(&field.name) {
            let names = self.fields.iter().map(|f| f.name.as_str());
            let help = did_you_mean(&field.name, names, "fields");
            self.invalid(
                Topic::Field,
                format!("no field is named `{}`", field.name),
                field.span,
                "not a field",
                format!(
                    "{help} (declare one: `field {} = distance from TILE`)",
                    field.name
                ),
            );
        }
        let agent = self.agent_in_pred(who);
        if allow != Allow::Time {
            self.invalid(
                Topic::Field,
                "a field is read in conditions only".into(),
                span,
                "no agent stands anywhere here",
                "read a field at an agent in a condition (`forbid fire(hero) <= steps`); \
                 here the number must be known from the map alone"
                    .into(),
            );
            return None;
        }
        let (f, agent) = (f?, agent?);
        self.fields[f].read = true;
        let a = &self.agents[agent.ix()];
        if a.several() || a.piece.is_some() {
            let what = if a.piece.is_some() {
                "covers several cells"
            } else {
                "has several members"
            };
            self.invalid(
                Topic::Field,
                format!("`{}` {what}: a field is read at one agent's cell", who.name),
                who.span,
                "not one cell",
                "read a field at a single agent of one cell".into(),
            );
            return None;
        }
        Some(Num::FieldAt(f, agent))
    }
}
