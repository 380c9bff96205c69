//! The expansion, checked without compiling it: what a good attribute generates, and the
//! message (and place) of each bad one. (The generated code itself is tested where it runs:
//! v12-netobject's `ghost::derive` tests and v12-sim's SceneObject packing tests.)

use crate::expand::expand;
use syn::DeriveInput;

fn err(input: DeriveInput) -> String {
    match expand(&input) {
        Ok(t) => panic!("expected an error, got {t}"),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect::<Vec<_>>().join(" | "),
    }
}

fn ok(input: DeriveInput) -> String {
    match expand(&input) {
        Ok(t) => t.to_string(),
        Err(e) => panic!("expected an expansion, got {e}"),
    }
}

#[test]
fn groups_become_bits_in_order_unless_told() {
    let out = ok(syn::parse_quote! {
        #[ghost(group(A, initial), group(B, bit = 5), group(C, initial_if = Self::any))]
        struct S {
            #[ghost(A, int(32))] a: u32,
            #[ghost(B, flag)] b: bool,
            #[ghost(C, point)] c: Vec3,
        }
    });
    assert!(out.contains("pub const A : u32 = 1 << 0u32"), "{out}");
    assert!(out.contains("pub const B : u32 = 1 << 5u32"), "{out}");
    assert!(out.contains("pub const C : u32 = 1 << 2u32"), "{out}");
    assert!(out.contains("mask & Self :: A != 0 || ctx . is_initial ()"), "{out}");
    assert!(out.contains("ctx . is_initial () && Self :: any (self)"), "{out}");
    assert!(out.contains(":: v12_netobject :: ghost :: GhostPackContext"), "{out}");
}

#[test]
fn entries_follow_field_order_and_at_paths() {
    let out = ok(syn::parse_quote! {
        #[ghost(crate = crate, group(M))]
        struct S {
            #[ghost(M, point, at = pos)]
            #[ghost(M, float(10, scale = TAU, bias = 0.5), at = yaw)]
            state: State,
            #[ghost(M, signed(12, scale = 64.0), at = vel.x)]
            other: State,
        }
    });
    let pos = out.find("self . state . pos").unwrap();
    let yaw = out.find("((self . state . yaw) / (TAU)) + (0.5)").unwrap();
    let vel = out.find("(self . other . vel . x) / (64.0)").unwrap();
    assert!(pos < yaw && yaw < vel, "{out}");
    assert!(out.contains("(r . read_float (10) ? - (0.5)) * (TAU)"), "{out}");
    assert!(out.contains("crate :: ghost :: GhostError"), "{out}");
}

#[test]
fn a_struct_without_groups_implements_ghost_fields() {
    let out = ok(syn::parse_quote! {
        struct T {
            #[ghost(string(max = 31))] name: String,
            #[ghost(flag)] on: bool,
            #[ghost(array(optional(fields)))] inner: [Option<U>; 4],
        }
    });
    assert!(out.contains("impl :: v12_netobject :: ghost :: GhostFields for T"), "{out}");
    assert!(out.contains("is longer than"), "{out}");
}

#[test]
fn hooks_are_called_where_documented() {
    let out = ok(syn::parse_quote! {
        #[ghost(group(G, after = Self::after, pack = Self::p, unpack = Self::u))]
        struct S {
            #[ghost(G, array(optional(fields)), set = Self::arrived)] t: [Option<U>; 4],
            #[ghost(G, with = odd)] o: Odd,
        }
    });
    assert!(out.contains("Self :: arrived (self , i , v)"), "{out}");
    assert!(out.contains("odd :: pack (& self . o , ctx , w)"), "{out}");
    assert!(out.contains("remaining |= Self :: p (self , ctx , w)"), "{out}");
    let u = out.find("Self :: u (self , ctx , r) ?").unwrap();
    let after = out.find("Self :: after (self , ctx)").unwrap();
    assert!(u < after, "the group's unpack hook runs before its after hook: {out}");
}

#[test]
fn bad_attributes_say_what_is_wrong() {
    let cases: Vec<(DeriveInput, &str)> = vec![
        (syn::parse_quote! { #[ghost(group(A))] struct S { #[ghost(B, flag)] a: bool } }, "no group `B`"),
        (syn::parse_quote! { #[ghost(group(A))] struct S { #[ghost(A, flog)] a: bool } }, "unknown kind"),
        (syn::parse_quote! { #[ghost(group(A))] struct S { #[ghost(A)] a: bool } }, "needs a kind"),
        (syn::parse_quote! { #[ghost(group(A))] struct S { #[ghost(A, int)] a: u8 } }, "`int` needs bits"),
        (
            syn::parse_quote! { #[ghost(group(A))] struct S { #[ghost(flag)] a: bool } },
            "name the entry's group",
        ),
        (syn::parse_quote! { struct S { #[ghost(A, flag)] a: bool } }, "no group `A`"),
        (
            syn::parse_quote! { #[ghost(group(A), group(A))] struct S { #[ghost(A, flag)] a: bool } },
            "declared twice",
        ),
        (
            syn::parse_quote! { #[ghost(group(A), group(B, bit = 0))] struct S { #[ghost(A, flag)] a: bool } },
            "has bit 0",
        ),
        (syn::parse_quote! { #[ghost(group(A, bit = 32))] struct S {} }, "0 to 31"),
        (syn::parse_quote! { #[ghost(group(A, pack = f))] struct S {} }, "needs its `unpack`"),
        (syn::parse_quote! { #[ghost(group(A))] struct S { a: bool } }, "has no entries"),
        (syn::parse_quote! { #[ghost(group(A, colour = 3))] struct S {} }, "unknown group option"),
        (
            syn::parse_quote! { #[ghost(group(A))] struct S { #[ghost(A, flag, with = m)] a: bool } },
            "`with` replaces the kind",
        ),
        (
            syn::parse_quote! { #[ghost(group(A))] struct S { #[ghost(A, signed(8, bias = 1.0))] a: f32 } },
            "unknown `signed` option",
        ),
        (
            syn::parse_quote! { #[ghost(group(A))] struct S { #[ghost(A, flag(3))] a: bool } },
            "takes no arguments",
        ),
        (syn::parse_quote! { #[ghost(group(A))] enum E { X } }, "only for a struct"),
        (syn::parse_quote! { #[ghost(colour)] struct S {} }, "expected `group(NAME, ...)`"),
    ];
    for (input, want) in cases {
        let got = err(input);
        assert!(got.contains(want), "wanted {want:?} in {got:?}");
    }
}

/// Several bad fields are all reported, not only the first.
#[test]
fn every_bad_field_is_reported() {
    let got = err(syn::parse_quote! {
        #[ghost(group(A))]
        struct S { #[ghost(A, flog)] a: bool, #[ghost(A, int)] b: u8 }
    });
    assert!(got.contains("unknown kind") && got.contains("needs bits"), "{got}");
}
