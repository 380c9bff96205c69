//! What the `#[ghost(...)]` attributes say, parsed: the struct's groups and each field's
//! entries. Every mistake is a `syn::Error` spanned on the token that caused it.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident, LitInt, Member, Path, Token};

/// When a group goes into an update besides its mask bit.
pub enum Initial {
    /// Only when its bit is in the mask.
    No,
    /// Also in every initial update (the create), whatever the mask.
    Always,
    /// Also in an initial update when this `fn(&Self) -> bool` says so.
    If(Path),
}

/// A state group: one mask bit, a flag on the wire, then its entries.
pub struct Group {
    pub name: Ident,
    pub bit: u32,
    pub initial: Initial,
    /// `fn(&mut Self, &GhostUnpackContext)`, run after the group was read.
    pub after: Option<Path>,
    /// The group's custom body, after its fields: `fn(&Self, &GhostPackContext, &mut
    /// BitWriter) -> u32` (bits still to send) and `fn(&mut Self, &GhostUnpackContext,
    /// &mut BitReader) -> Result<(), GhostError>`.
    pub hook: Option<(Path, Path)>,
}

/// How one value goes on the wire.
pub enum Kind {
    Flag,
    Int(Expr),
    Float { bits: Expr, scale: Option<Expr>, bias: Option<Expr> },
    Signed { bits: Expr, scale: Option<Expr> },
    F32,
    Point,
    Str { max: Option<Expr> },
    Fields,
    Optional(Box<Kind>),
    Array(Box<Kind>),
}

/// What an entry packs: a kind, or a module's `pack` / `unpack` pair.
pub enum How {
    Kind(Box<Kind>),
    With(Path),
}

/// One `#[ghost(...)]` on a field.
pub struct Entry {
    pub group: Option<Ident>,
    /// `self.field` followed by the `at = a.b` path.
    pub place: TokenStream,
    /// The field's name (for error messages on the client).
    pub label: String,
    pub how: How,
    /// Unpack hands the value to this instead of assigning it: `fn(&mut Self, T)`, or for an
    /// `array`, `fn(&mut Self, usize, T)`.
    pub set: Option<Path>,
    pub span: Span,
}

/// The struct-level attribute.
pub struct Spec {
    pub krate: Path,
    pub groups: Vec<Group>,
}

const KINDS: &str =
    "flag, int(bits), float(bits), signed(bits), f32, point, string, fields, optional(kind), array(kind)";

pub fn parse_spec(attrs: &[Attribute]) -> syn::Result<Spec> {
    let mut krate: Option<Path> = None;
    let mut groups: Vec<Group> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("ghost")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                if krate.is_some() {
                    return Err(meta.error("`crate` given twice"));
                }
                krate = Some(meta.value()?.parse()?);
                Ok(())
            } else if meta.path.is_ident("group") {
                let g = parse_group(&meta, groups.len() as u32)?;
                if let Some(other) = groups.iter().find(|o| o.name == g.name) {
                    let mut e = syn::Error::new(g.name.span(), format!("group `{}` declared twice", g.name));
                    e.combine(syn::Error::new(other.name.span(), "first declared here"));
                    return Err(e);
                }
                if let Some(other) = groups.iter().find(|o| o.bit == g.bit) {
                    return Err(syn::Error::new(
                        g.name.span(),
                        format!("group `{}` has bit {}, as `{}` does", g.name, g.bit, other.name),
                    ));
                }
                groups.push(g);
                Ok(())
            } else {
                Err(meta.error("expected `group(NAME, ...)` or `crate = path` on the struct"))
            }
        })?;
    }
    let krate = krate.unwrap_or_else(|| syn::parse_quote!(::v12_netobject));
    Ok(Spec { krate, groups })
}

fn parse_group(meta: &syn::meta::ParseNestedMeta<'_>, index: u32) -> syn::Result<Group> {
    let mut name: Option<Ident> = None;
    let mut bit: Option<(u32, Span)> = None;
    let mut initial = Initial::No;
    let mut after = None;
    let mut pack: Option<Path> = None;
    let mut unpack: Option<Path> = None;
    meta.parse_nested_meta(|m| {
        let Some(key) = m.path.get_ident().cloned() else {
            return Err(m.error("expected a group name or option"));
        };
        if name.is_none() {
            if m.input.peek(Token![=]) || m.input.peek(syn::token::Paren) {
                return Err(m.error("a group starts with its name: group(NAME, ...)"));
            }
            name = Some(key);
            return Ok(());
        }
        match key.to_string().as_str() {
            "bit" => {
                let lit: LitInt = m.value()?.parse()?;
                let b: u32 = lit.base10_parse()?;
                if b >= 32 {
                    return Err(syn::Error::new(lit.span(), "a mask bit is 0 to 31"));
                }
                bit = Some((b, lit.span()));
            }
            "initial" => {
                if !matches!(initial, Initial::No) {
                    return Err(m.error("`initial` and `initial_if` given together or twice"));
                }
                initial = Initial::Always;
            }
            "initial_if" => {
                if !matches!(initial, Initial::No) {
                    return Err(m.error("`initial` and `initial_if` given together or twice"));
                }
                initial = Initial::If(m.value()?.parse()?);
            }
            "after" => after = Some(m.value()?.parse()?),
            "pack" => pack = Some(m.value()?.parse()?),
            "unpack" => unpack = Some(m.value()?.parse()?),
            other => {
                return Err(m.error(format!(
                    "unknown group option `{other}`; expected bit = N, initial, initial_if = path, after = path, pack = path, unpack = path"
                )));
            }
        }
        Ok(())
    })?;
    let Some(name) = name else {
        return Err(meta.error("a group needs a name: group(NAME, ...)"));
    };
    if index >= 32 && bit.is_none() {
        return Err(syn::Error::new(name.span(), "more than 32 groups: a mask has 32 bits"));
    }
    let hook = match (pack, unpack) {
        (Some(p), Some(u)) => Some((p, u)),
        (None, None) => None,
        (Some(p), None) => return Err(syn::Error::new(p.span(), "`pack` needs its `unpack`")),
        (None, Some(u)) => return Err(syn::Error::new(u.span(), "`unpack` needs its `pack`")),
    };
    Ok(Group { name, bit: bit.map_or(index, |b| b.0), initial, after, hook })
}

/// The entries of one field, in attribute order.
pub fn parse_entries(field: &syn::Field, member: &Member) -> syn::Result<Vec<Entry>> {
    let mut out = Vec::new();
    let label = match member {
        Member::Named(i) => i.to_string(),
        Member::Unnamed(i) => i.index.to_string(),
    };
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("ghost")) {
        let mut group = None;
        let mut kind: Option<Kind> = None;
        let mut with: Option<Path> = None;
        let mut set: Option<Path> = None;
        let mut at = quote!();
        attr.parse_nested_meta(|m| {
            let Some(key) = m.path.get_ident().cloned() else {
                return Err(m.error("expected a group name, a kind or an option"));
            };
            let k = key.to_string();
            match k.as_str() {
                "at" => {
                    m.input.parse::<Token![=]>()?;
                    at = parse_at(m.input)?;
                }
                "with" => with = Some(m.value()?.parse()?),
                "set" => set = Some(m.value()?.parse()?),
                _ if is_kind(&k) => {
                    if kind.is_some() {
                        return Err(m.error("one kind per entry (write another #[ghost(...)] for another value)"));
                    }
                    kind = Some(parse_kind_after(&key, m.input)?);
                }
                _ if m.input.is_empty() || m.input.peek(Token![,]) => {
                    if group.is_some() {
                        return Err(m.error(format!("unknown kind `{k}`; expected one of {KINDS}")));
                    }
                    group = Some(key);
                }
                _ => return Err(m.error(format!("unknown kind or option `{k}`; expected one of {KINDS}, at = path, with = module, set = path"))),
            }
            Ok(())
        })?;
        let member_tokens = member.to_token_stream();
        let place = quote!(self.#member_tokens #at);
        let how = match (kind, with) {
            (Some(k), None) => How::Kind(Box::new(k)),
            (None, Some(w)) => How::With(w),
            (Some(_), Some(w)) => {
                return Err(syn::Error::new(w.span(), "`with` replaces the kind: give one or the other"));
            }
            (None, None) => {
                return Err(syn::Error::new(
                    attr.span(),
                    format!("the entry needs a kind ({KINDS}) or `with = module`"),
                ));
            }
        };
        if let (How::With(_), Some(s)) = (&how, &set) {
            return Err(syn::Error::new(
                s.span(),
                "`set` does not apply to a `with` entry (its unpack sets the value)",
            ));
        }
        out.push(Entry { group, place, label: label.clone(), how, set, span: attr.span() });
    }
    Ok(out)
}

fn is_kind(k: &str) -> bool {
    matches!(
        k,
        "flag" | "int" | "float" | "signed" | "f32" | "point" | "string" | "fields" | "optional" | "array"
    )
}

/// `a.b.0` after `at =`: the members below the field.
fn parse_at(input: ParseStream<'_>) -> syn::Result<TokenStream> {
    let mut out = TokenStream::new();
    loop {
        let m: Member = input.parse()?;
        out.extend(quote!(.#m));
        if !input.peek(Token![.]) {
            return Ok(out);
        }
        input.parse::<Token![.]>()?;
    }
}

/// A kind whose name was just read; its arguments follow in `input`.
fn parse_kind_after(name: &Ident, input: ParseStream<'_>) -> syn::Result<Kind> {
    let k = name.to_string();
    let args = if input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in input);
        Some(content)
    } else {
        None
    };
    let need = |what: &str| syn::Error::new(name.span(), format!("`{k}` needs {what}: {k}({what})"));
    let none = |args: &Option<syn::parse::ParseBuffer<'_>>| -> syn::Result<()> {
        match args {
            Some(a) if !a.is_empty() => Err(a.error(format!("`{k}` takes no arguments"))),
            _ => Ok(()),
        }
    };
    Ok(match k.as_str() {
        "flag" => none(&args).map(|_| Kind::Flag)?,
        "f32" => none(&args).map(|_| Kind::F32)?,
        "point" => none(&args).map(|_| Kind::Point)?,
        "fields" => none(&args).map(|_| Kind::Fields)?,
        "int" => {
            let a = args.ok_or_else(|| need("bits"))?;
            let bits: Expr = a.parse()?;
            if !a.is_empty() {
                return Err(a.error("`int` takes only its bit count"));
            }
            Kind::Int(bits)
        }
        "float" | "signed" => {
            let a = args.ok_or_else(|| need("bits"))?;
            let bits: Expr = a.parse()?;
            let (mut scale, mut bias) = (None, None);
            while !a.is_empty() {
                a.parse::<Token![,]>()?;
                if a.is_empty() {
                    break;
                }
                let key: Ident = a.parse()?;
                a.parse::<Token![=]>()?;
                let v: Expr = a.parse()?;
                match key.to_string().as_str() {
                    "scale" => scale = Some(v),
                    "bias" if k == "float" => bias = Some(v),
                    _ => {
                        let opts = if k == "float" { "scale = expr, bias = expr" } else { "scale = expr" };
                        return Err(syn::Error::new(
                            key.span(),
                            format!("unknown `{k}` option; expected {opts}"),
                        ));
                    }
                }
            }
            if k == "float" { Kind::Float { bits, scale, bias } } else { Kind::Signed { bits, scale } }
        }
        "string" => {
            let mut max = None;
            if let Some(a) = args
                && !a.is_empty()
            {
                let key: Ident = a.parse()?;
                if key != "max" {
                    return Err(syn::Error::new(key.span(), "expected `max = N`"));
                }
                a.parse::<Token![=]>()?;
                max = Some(a.parse()?);
                if !a.is_empty() {
                    return Err(a.error("`string` takes only `max = N`"));
                }
            }
            Kind::Str { max }
        }
        "optional" | "array" => {
            let a = args.ok_or_else(|| need("kind"))?;
            let inner: Ident = a.parse()?;
            if !is_kind(&inner.to_string()) {
                return Err(syn::Error::new(inner.span(), format!("unknown kind; expected one of {KINDS}")));
            }
            let inner = parse_kind_after(&inner, &a)?;
            if !a.is_empty() {
                return Err(a.error(format!("`{k}` takes one kind")));
            }
            if k == "optional" { Kind::Optional(Box::new(inner)) } else { Kind::Array(Box::new(inner)) }
        }
        _ => return Err(syn::Error::new(name.span(), format!("unknown kind; expected one of {KINDS}"))),
    })
}
