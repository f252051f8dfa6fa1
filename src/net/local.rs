//! The local network as a headset in no session reaches it: hosting from where its world stands ("Share session"), and joining the session whose printed card it sees.
use super::card_join::CardJoin;
use super::code::ShareCode;
use super::end::Session;
use super::open;
use crate::app::Marker;
use crate::app::log::{CommandLog, LogStart};
use crate::app::run::Network;

/// The local network as a headset in no session reaches it: hosting from
/// where the world stands ("Share session") on `port`, advertised by
/// DNS-SD when `listed`, and joining the session whose card is seen.
pub struct LocalNetwork {
    port: u16,
    listed: bool,
    card_join: CardJoin,
}

impl LocalNetwork {
    /// Hosts on `port` (advertised when `listed`) when asked.
    pub fn new(port: u16, listed: bool) -> Self {
        LocalNetwork {
            port,
            listed,
            card_join: CardJoin::default(),
        }
    }
}

impl Network for LocalNetwork {
    type Session = Session;

    fn host_from_here(
        &mut self,
        so_far: &CommandLog,
        grew: usize,
        checksums: Vec<(u64, u64)>,
    ) -> Result<(Session, String), String> {
        let code = ShareCode::generate().map_err(|error| error.to_string())?;
        open::host_from(code, self.port, self.listed, so_far, grew, checksums)
            .map_err(|error| error.to_string())
    }

    fn look_for_cards(&mut self, markers: &[Marker]) -> Option<String> {
        self.card_join.look(markers)
    }

    fn joined_by_card(&mut self) -> Option<Result<(Session, LogStart), String>> {
        self.card_join
            .finished()
            .map(|joined| joined.map(|joined| (joined.session, joined.start)))
    }
}
