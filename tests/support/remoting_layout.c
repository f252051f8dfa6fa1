/* The XR_MSFT_holographic_remoting and XR_MSFT_holographic_remoting_speech
 * declarations holoterrain uses, written here in C from the facts of
 * Microsoft's published headers openxr_msft_holographic_remoting.h and
 * openxr_msft_holographic_remoting_speech.h (Microsoft.Holographic.Remoting.OpenXr):
 * member types and order, and the enum values. Built by the unit test in
 * src/xr/sys/remoting.rs, which compares the C compiler's sizes and offsets with
 * the Rust declarations'. OpenXR's base types as openxr.h defines them. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint32_t XrBool32;
typedef int32_t XrStructureType; /* a C enum: 32 bits */
typedef uint64_t XrRemotingSpeechPacketIdMSFT; /* XR_DEFINE_ATOM: 64 bits */

enum remoting_type {
    TYPE_PROPERTIES = 1000065000,
    TYPE_CONNECT = 1000065001,
    TYPE_LISTEN = 1000065002,
    TYPE_DISCONNECT = 1000065003,
    TYPE_LISTENING = 1000065004,
    TYPE_CONNECTED = 1000065005,
    TYPE_DISCONNECTED = 1000065006,
};
enum speech_type {
    TYPE_SPEECH_INIT = 1000144000,
    TYPE_SPEECH_STATE_CHANGED = 1000144001,
    TYPE_SPEECH_RECOGNIZED = 1000144002,
};
enum connection_state { STATE_DISCONNECTED = 0, STATE_CONNECTING = 1, STATE_CONNECTED = 2 };
enum recognizer_state { RECOGNIZER_INITIALIZATION_FAILED = 2, RECOGNIZER_STARTED = 3 };
enum confidence { CONFIDENCE_HIGH = 0, CONFIDENCE_MEDIUM = 1, CONFIDENCE_LOW = 2 };
#define PACKET_EXPIRED (-1000144001)
#define CODEC_NOT_FOUND (-1000065001)
enum video_codec { CODEC_ANY = 0, CODEC_H264 = 1, CODEC_H265 = 2 };
enum depth_resolution { DEPTH_HALF = 0, DEPTH_FULL = 1, DEPTH_QUARTER = 2, DEPTH_DISABLED = 3 };
enum disconnect_reason {
    REASON_HANDSHAKE_UNREACHABLE = 4,
    REASON_VIDEO_CODEC_NOT_AVAILABLE = 15,
    REASON_CONNECTION_LOST = 17,
    REASON_HANDSHAKE_CONNECTION_REFUSED = 21,
    REASON_SESSION_OPEN_TIMEOUT = 25,
    REASON_HANDSHAKE_PERMISSION_DENIED = 28,
};

struct properties {
    XrStructureType type;
    void *next;
    uint32_t maxBitrateKbps;
    XrBool32 enableAudio;
    enum video_codec videoCodec;
    enum depth_resolution depthBufferStreamResolution;
};

struct connect {
    XrStructureType type;
    const void *next;
    const char *remoteHostName;
    uint16_t remotePort;
    XrBool32 secureConnection;
};

struct listen {
    XrStructureType type;
    const void *next;
    const char *listenInterface;
    uint16_t handshakeListenPort;
    uint16_t transportListenPort;
    XrBool32 secureConnection;
};

struct disconnect {
    XrStructureType type;
    const void *next;
};

struct listening {
    XrStructureType type;
    const void *next;
    uint16_t listeningPort;
};

struct speech_init {
    XrStructureType type;
    const void *next;
    char language[32];
    uint32_t grammarFileSize;
    uint8_t *grammarFileContent;
    uint32_t dictionaryEntriesCount;
    const char **dictionaryEntries;
};

struct speech_state {
    XrStructureType type;
    void *next;
    enum recognizer_state speechRecognizerState;
    char stateMessage[32];
};

struct speech_recognized {
    XrStructureType type;
    void *next;
    XrRemotingSpeechPacketIdMSFT packetId;
    enum confidence confidence;
    float rawConfidence;
};

struct disconnected {
    XrStructureType type;
    const void *next;
    enum disconnect_reason disconnectReason;
};

#define SIZE(s) printf(#s ".size %zu\n", sizeof(struct s))
#define AT(s, m) printf(#s "." #m " %zu\n", offsetof(struct s, m))
#define VALUE(name, v) printf(name " %ld\n", (long)(v))

int main(void) {
    SIZE(properties);
    AT(properties, next);
    AT(properties, maxBitrateKbps);
    AT(properties, enableAudio);
    AT(properties, videoCodec);
    AT(properties, depthBufferStreamResolution);
    SIZE(connect);
    AT(connect, next);
    AT(connect, remoteHostName);
    AT(connect, remotePort);
    AT(connect, secureConnection);
    SIZE(listen);
    AT(listen, next);
    AT(listen, listenInterface);
    AT(listen, handshakeListenPort);
    AT(listen, transportListenPort);
    AT(listen, secureConnection);
    SIZE(disconnect);
    AT(disconnect, next);
    SIZE(listening);
    AT(listening, listeningPort);
    SIZE(speech_init);
    AT(speech_init, language);
    AT(speech_init, grammarFileSize);
    AT(speech_init, grammarFileContent);
    AT(speech_init, dictionaryEntriesCount);
    AT(speech_init, dictionaryEntries);
    SIZE(speech_state);
    AT(speech_state, speechRecognizerState);
    AT(speech_state, stateMessage);
    SIZE(speech_recognized);
    AT(speech_recognized, packetId);
    AT(speech_recognized, confidence);
    AT(speech_recognized, rawConfidence);
    SIZE(disconnected);
    AT(disconnected, next);
    AT(disconnected, disconnectReason);
    VALUE("type.properties", TYPE_PROPERTIES);
    VALUE("type.connect", TYPE_CONNECT);
    VALUE("type.listen", TYPE_LISTEN);
    VALUE("type.disconnect", TYPE_DISCONNECT);
    VALUE("type.listening", TYPE_LISTENING);
    VALUE("type.connected", TYPE_CONNECTED);
    VALUE("type.disconnected", TYPE_DISCONNECTED);
    VALUE("type.speechInit", TYPE_SPEECH_INIT);
    VALUE("type.speechStateChanged", TYPE_SPEECH_STATE_CHANGED);
    VALUE("type.speechRecognized", TYPE_SPEECH_RECOGNIZED);
    VALUE("codec.any", CODEC_ANY);
    VALUE("codec.h264", CODEC_H264);
    VALUE("codec.h265", CODEC_H265);
    VALUE("depth.half", DEPTH_HALF);
    VALUE("state.disconnected", STATE_DISCONNECTED);
    VALUE("state.connecting", STATE_CONNECTING);
    VALUE("state.connected", STATE_CONNECTED);
    VALUE("recognizer.initializationFailed", RECOGNIZER_INITIALIZATION_FAILED);
    VALUE("recognizer.started", RECOGNIZER_STARTED);
    VALUE("confidence.high", CONFIDENCE_HIGH);
    VALUE("result.packetExpired", PACKET_EXPIRED);
    VALUE("result.codecNotFound", CODEC_NOT_FOUND);
    VALUE("reason.handshakeUnreachable", REASON_HANDSHAKE_UNREACHABLE);
    VALUE("reason.videoCodecNotAvailable", REASON_VIDEO_CODEC_NOT_AVAILABLE);
    VALUE("reason.connectionLost", REASON_CONNECTION_LOST);
    VALUE("reason.handshakeConnectionRefused", REASON_HANDSHAKE_CONNECTION_REFUSED);
    VALUE("reason.sessionOpenTimeout", REASON_SESSION_OPEN_TIMEOUT);
    VALUE("reason.handshakePermissionDenied", REASON_HANDSHAKE_PERMISSION_DENIED);
    VALUE("enum.size", sizeof(enum video_codec));
    return 0;
}
