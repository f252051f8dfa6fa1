//! Sealed JSON messages on one connection: the [`Writer`] that sends them and [`read_message`], which reads, opens and decodes one and says why not.
use std::io::ErrorKind;
use std::net::TcpStream;

use serde::Serialize;

use crate::net::frame::{FrameError, Opener, Sealer};

/// Sealed JSON messages out, on one connection.
pub(super) struct Writer {
    pub(super) stream: TcpStream,
    pub(super) sealer: Sealer,
}

impl Writer {
    pub(super) fn send<T: Serialize>(&mut self, message: &T) -> Result<(), FrameError> {
        // Messages are plain data: serialising cannot fail.
        let json = serde_json::to_vec(message).expect("a message serialises");
        self.sealer.write(&mut self.stream, &json)
    }
}

/// Why a message could not be read.
#[derive(Debug)]
pub(super) struct ReadFailure {
    /// As the log says it.
    pub(super) why: String,
    /// The link itself failed (closed, reset, timed out), rather than
    /// carrying something wrong: worth connecting again.
    pub(super) dropped: bool,
}

/// Reads, opens and decodes one message; why not.
pub(super) fn read_message<T: serde::de::DeserializeOwned>(
    opener: &mut Opener,
    stream: &mut TcpStream,
) -> Result<T, ReadFailure> {
    let plain = opener.read(stream).map_err(|error| match error {
        FrameError::Io(error)
            if matches!(
                error.kind(),
                ErrorKind::UnexpectedEof
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
            ) =>
        {
            ReadFailure {
                why: "the connection closed".to_owned(),
                dropped: true,
            }
        }
        FrameError::Io(error) => ReadFailure {
            why: format!("{error}; closed its connection"),
            dropped: true,
        },
        other => ReadFailure {
            why: format!("{other}; closed its connection"),
            dropped: false,
        },
    })?;
    serde_json::from_slice(&plain).map_err(|error| ReadFailure {
        why: format!("sent a message that is not one ({error}); closed its connection"),
        dropped: false,
    })
}
