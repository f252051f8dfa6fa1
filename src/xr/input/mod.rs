//! The wearer's input: hands and controllers through OpenXR actions and
//! hand tracking, and voice through the Remoting Player's speech recognizer
//! or, on Windows without one, Windows' own.

pub mod actions;
// Only the Windows listener uses it; its tests run everywhere (Linux above all).
#[cfg(any(windows, test))]
pub mod device_speech;
pub mod speech;
#[cfg(windows)]
pub mod windows_speech;
