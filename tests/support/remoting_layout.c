/* The XR_MSFT_holographic_remoting declarations holoterrain uses, written
 * here in C from the facts of Microsoft's published header
 * openxr_msft_holographic_remoting.h (Microsoft.Holographic.Remoting.OpenXr):
 * member types and order, and the enum values. Built by the unit test in
 * src/xr/remoting.rs, which compares the C compiler's sizes and offsets with
 * the Rust declarations'. OpenXR's base types as openxr.h defines them. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint32_t XrBool32;
typedef int32_t XrStructureType; /* a C enum: 32 bits */

enum remoting_type {
    TYPE_PROPERTIES = 1000065000,
    TYPE_CONNECT = 1000065001,
    TYPE_DISCONNECT = 1000065003,
    TYPE_CONNECTED = 1000065005,
    TYPE_DISCONNECTED = 1000065006,
};
enum video_codec { CODEC_ANY = 0, CODEC_H264 = 1, CODEC_H265 = 2 };
enum depth_resolution { DEPTH_HALF = 0, DEPTH_FULL = 1, DEPTH_QUARTER = 2, DEPTH_DISABLED = 3 };
enum disconnect_reason { REASON_HANDSHAKE_UNREACHABLE = 4, REASON_SESSION_OPEN_TIMEOUT = 25 };

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

struct disconnect {
    XrStructureType type;
    const void *next;
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
    SIZE(disconnect);
    AT(disconnect, next);
    SIZE(disconnected);
    AT(disconnected, next);
    AT(disconnected, disconnectReason);
    VALUE("type.properties", TYPE_PROPERTIES);
    VALUE("type.connect", TYPE_CONNECT);
    VALUE("type.disconnect", TYPE_DISCONNECT);
    VALUE("type.connected", TYPE_CONNECTED);
    VALUE("type.disconnected", TYPE_DISCONNECTED);
    VALUE("codec.any", CODEC_ANY);
    VALUE("depth.half", DEPTH_HALF);
    VALUE("reason.handshakeUnreachable", REASON_HANDSHAKE_UNREACHABLE);
    VALUE("reason.sessionOpenTimeout", REASON_SESSION_OPEN_TIMEOUT);
    VALUE("enum.size", sizeof(enum video_codec));
    return 0;
}
