#![doc = include_str!("../README.md")]

mod expand;
mod model;

use proc_macro::TokenStream;

/// Generates a ghosted object's state groups (mask bit constants), `pack_groups` and
/// `unpack_groups` from its `#[ghost(...)]` attributes; on a struct without groups, an
/// implementation of `GhostFields` (a value packed inside a group). See the crate docs.
#[proc_macro_derive(GhostState, attributes(ghost))]
pub fn derive_ghost_state(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::expand(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

#[cfg(test)]
mod tests;
