/* The layout of Monado 25's remote-driver packet, transcribed from
 * src/xrt/drivers/remote/r_interface.h (struct r_remote_data, header
 * "mndrmt3"), built by tests/xr_monado.rs to check with the C compiler's own
 * offsetof that the Rust client's offsets follow C's layout rules. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct vec1 { float x; };
struct vec2 { float x, y; };
struct vec3 { float x, y, z; };
struct quat { float x, y, z, w; };
struct pose { struct quat orientation; struct vec3 position; };
struct fov { float angle_left, angle_right, angle_up, angle_down; };

struct controller {
    struct pose pose;
    struct vec3 linear_velocity;
    struct vec3 angular_velocity;
    float hand_curl[5];
    struct vec1 trigger_value;
    struct vec1 squeeze_value;
    struct vec1 squeeze_force;
    struct vec2 thumbstick;
    struct vec1 trackpad_force;
    struct vec2 trackpad;
    bool hand_tracking_active;
    bool active;
    bool system_click, system_touch;
    bool a_click, a_touch;
    bool b_click, b_touch;
    bool trigger_click, trigger_touch;
    bool thumbstick_click, thumbstick_touch;
    bool trackpad_touch;
    bool pad0, pad1, pad2;
};

struct head {
    struct {
        struct fov fov;
        struct pose pose;
        uint32_t pad;
    } views[2];
    struct pose center;
    bool per_view_data_valid;
    bool pad0, pad1, pad2;
};

struct packet {
    uint64_t header;
    struct head head;
    struct controller left, right;
};

int main(void)
{
    printf("packet %zu\n", sizeof(struct packet));
    printf("controller %zu\n", sizeof(struct controller));
    printf("head %zu\n", offsetof(struct packet, head));
    printf("head_center %zu\n", offsetof(struct packet, head.center));
    printf("left %zu\n", offsetof(struct packet, left));
    printf("right %zu\n", offsetof(struct packet, right));
    printf("hand_curl %zu\n", offsetof(struct controller, hand_curl));
    printf("trigger_value %zu\n", offsetof(struct controller, trigger_value));
    printf("squeeze_value %zu\n", offsetof(struct controller, squeeze_value));
    printf("squeeze_force %zu\n", offsetof(struct controller, squeeze_force));
    printf("hand_tracking_active %zu\n", offsetof(struct controller, hand_tracking_active));
    printf("active %zu\n", offsetof(struct controller, active));
    printf("trigger_click %zu\n", offsetof(struct controller, trigger_click));
    printf("trigger_touch %zu\n", offsetof(struct controller, trigger_touch));
    return 0;
}
