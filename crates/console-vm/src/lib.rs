#![doc = include_str!("../README.md")]

pub mod ast;
mod builtins;
pub mod bytecode;
pub mod compiler;
mod console;
pub mod dap;
mod debug_link;
pub mod debugger;
mod elements;
pub mod field_types;
pub mod files;
mod inspect;
pub mod intern;
pub mod lexer;
#[cfg(feature = "lua")]
pub mod lua;
mod namespace;
mod object;
pub mod output;
pub mod parser;
pub mod profiler;
mod recursion;
mod scheduler;
mod sim_manager;
mod stack;
mod stack_ops;
mod tags;
mod units;
pub mod value;
mod vm;

pub use builtins::{collapse_escape, expand_escape};
pub use bytecode::{Callable, GLOBAL_NS, MAX_ARGS, NativeId, NsId};
pub use console::{
    CallArgs, Console, ConsoleConfig, ConsoleError, ERROR_BUDGET_COST, NativeBody, NativeFn, PreloadHook,
    decode_source,
};
pub use field_types::{Editor, FieldLookup, FieldTypeDef};
pub use inspect::{DYNAMIC_GROUP, FieldRow};
pub use intern::Name;
pub use object::{
    ClassKind, ClassRec, DATABLOCK_GROUP_ID, DynFields, FIRST_DATABLOCK_ID, FIRST_OBJECT_ID, FieldDef,
    FieldType, ObjectId, ROOT_GROUP_ID, SimObject,
};
pub use output::{BufferSink, Level, OutputSink, StdioSink};
pub use parser::{SyntaxError, parse};
pub use scheduler::MAX_SCHEDULED_EVENTS;
pub use units::{get_unit, unit_count};
pub use value::{MAX_STRING_LEN, Value};
