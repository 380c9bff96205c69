//! The crate's error type.

/// Errors from setting up the GUI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuiError {
    /// The console refused something (class registration, object creation, a script).
    Console(String),
}

impl std::fmt::Display for GuiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GuiError::Console(m) => write!(f, "console: {m}"),
        }
    }
}

impl std::error::Error for GuiError {}
