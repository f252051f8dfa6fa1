//! The wearer's input: hands and controllers through OpenXR actions and
//! hand tracking, and voice through the Remoting Player's speech recognizer.

pub mod actions;
pub mod speech;
