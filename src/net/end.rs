//! This headset's end of a shared session, host or peer, as the run loop drives it: values in before the app's update, values out after it.
use super::session::{Host, Peer, PeerRecord, ShareReport};
use crate::app::run::SharedSession;
use crate::app::{FrameOutput, Role, SessionIn};

/// This headset's end of a shared session.
pub enum Session {
    /// It hosts.
    Host(Box<Host>),
    /// It joined.
    Peer(Box<Peer>),
}

impl SharedSession for Session {
    fn role(&self) -> Role {
        match self {
            Session::Host(_) => Role::Host,
            Session::Peer(_) => Role::Peer,
        }
    }

    fn code(&self) -> String {
        match self {
            Session::Host(host) => host.code().to_string(),
            Session::Peer(peer) => peer.code().to_owned(),
        }
    }

    fn before_frame(&mut self, into: &mut Vec<SessionIn>) {
        match self {
            Session::Host(host) => host.before_frame(into),
            Session::Peer(peer) => peer.before_frame(into),
        }
    }

    fn after_frame(&mut self, output: &FrameOutput) {
        match self {
            Session::Host(host) => host.after_frame(output),
            Session::Peer(peer) => peer.after_frame(output),
        }
    }

    fn take_notes(&mut self) -> Vec<String> {
        match self {
            Session::Host(host) => host.take_notes(),
            Session::Peer(peer) => peer.take_notes(),
        }
    }

    fn leave(&mut self) {
        match self {
            Session::Host(host) => host.leave(),
            Session::Peer(peer) => peer.say_goodbye(),
        }
    }
}

impl Session {
    /// Leaves the session; what it did, and who took part.
    pub fn finish(self) -> (ShareReport, Vec<PeerRecord>) {
        match self {
            Session::Host(host) => host.finish(),
            Session::Peer(peer) => peer.finish(),
        }
    }
}
