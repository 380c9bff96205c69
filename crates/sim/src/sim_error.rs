//! The error type of the simulation core.

use std::fmt;

/// Why a simulation-core operation failed. Errors caused by a peer's data end only that
/// peer's connection.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// A console operation failed (unknown class, ...).
    Console(String),
    /// The network layer refused (no such connection, ...).
    Net(v12_netobject::NetError),
    /// Bad move data.
    Move(crate::moves::MoveError),
    /// A container edit failed.
    Container(crate::container::ContainerError),
    /// A process-list edit failed.
    Process(crate::process::ProcessError),
    /// A datablock from the server could not be built.
    DataBlock(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Console(e) => write!(f, "console: {e}"),
            Self::Net(e) => write!(f, "network: {e}"),
            Self::Move(e) => write!(f, "{e}"),
            Self::Container(e) => write!(f, "{e}"),
            Self::Process(e) => write!(f, "{e}"),
            Self::DataBlock(e) => write!(f, "datablock: {e}"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<v12_console_vm::ConsoleError> for SimError {
    fn from(e: v12_console_vm::ConsoleError) -> Self {
        Self::Console(e.to_string())
    }
}
impl From<v12_netobject::NetError> for SimError {
    fn from(e: v12_netobject::NetError) -> Self {
        Self::Net(e)
    }
}
impl From<crate::moves::MoveError> for SimError {
    fn from(e: crate::moves::MoveError) -> Self {
        Self::Move(e)
    }
}
impl From<crate::container::ContainerError> for SimError {
    fn from(e: crate::container::ContainerError) -> Self {
        Self::Container(e)
    }
}
impl From<crate::process::ProcessError> for SimError {
    fn from(e: crate::process::ProcessError) -> Self {
        Self::Process(e)
    }
}
