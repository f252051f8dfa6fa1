//! Holographic Remoting: the addresses and codec the app streams with, and
//! the link to the player, with its reconnects.

pub mod address;
pub mod link;
