/* Framing of the messages between oshrun's built-in launcher and the PEs.
 *
 * Each PE holds one end of a Unix stream socket; the launcher holds the other.
 * A message is a fixed 16-byte header followed by `len` payload bytes:
 *
 *   offset 0  u32 magic   BOOT_PROTO_MAGIC (also the protocol version)
 *   offset 4  u16 type    enum boot_msg_type
 *   offset 6  u16 zero    reserved, must be 0
 *   offset 8  u32 arg     HELLO: rank, ABORT: status, otherwise 0
 *   offset 12 u32 len     payload bytes, at most the receiver's limit
 *
 * Integers are little-endian. PE -> launcher: HELLO once after connecting,
 * then ALLGATHER / BARRIER (answered by a message of the same type once every
 * PE has entered), ABORT (never answered: the launcher ends the job) and
 * FINALIZE (last message). The ALLGATHER answer carries size * len bytes,
 * rank-ordered.
 */
#ifndef BOOT_LAUNCH_PROTO_H
#define BOOT_LAUNCH_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define BOOT_PROTO_MAGIC 0x53484231u /* "SHB1" */
#define BOOT_PROTO_HDR_SIZE 16
/* Largest payload either side accepts (the launcher's answer to an allgather
 * is the largest message). */
#define BOOT_PROTO_MAX_LEN (256u << 20)

/* Environment of a PE started by oshrun's built-in launcher. */
#define BOOT_ENV_FD "SHMEMI_BOOT_FD"
#define BOOT_ENV_RANK "SHMEMI_BOOT_RANK"
#define BOOT_ENV_SIZE "SHMEMI_BOOT_SIZE"

enum boot_msg_type {
    BOOT_MSG_HELLO = 1,
    BOOT_MSG_ALLGATHER = 2,
    BOOT_MSG_BARRIER = 3,
    BOOT_MSG_ABORT = 4,
    BOOT_MSG_FINALIZE = 5,
};

/* Status codes of this file (0 ok, negative error). */
enum {
    BOOT_PROTO_OK = 0,
    BOOT_PROTO_ERR_SYS = -1,       /* a system call failed; errno is set */
    BOOT_PROTO_ERR_CLOSED = -2,    /* the peer closed before a message began */
    BOOT_PROTO_ERR_TRUNCATED = -3, /* the peer closed in the middle of a message */
    BOOT_PROTO_ERR_BADHDR = -4,    /* wrong magic, unknown type or reserved bits set */
    BOOT_PROTO_ERR_TOOBIG = -5,    /* len above the receiver's limit */
    BOOT_PROTO_ERR_TIMEOUT = -6,   /* the deadline passed */
    BOOT_PROTO_ERR_NOMEM = -7,
};

/* Process exit code for an abort status: the low 8 bits, but never 0 for a
 * non-zero status (256 would otherwise read as success). */
static inline int boot_exit_code(int status) {
    return (status & 0xff) ? (status & 0xff) : (status ? 1 : 0);
}

struct boot_msg_hdr {
    uint16_t type;
    uint32_t arg;
    uint32_t len;
};

/* One line describing a BOOT_PROTO_* status (errno included for ERR_SYS when
 * the caller passes it). */
const char *boot_proto_strerror(int status);
const char *boot_msg_type_name(unsigned type);

/* Header <-> 16 bytes. decode checks magic, type, reserved bits and
 * len <= max_len. */
void boot_proto_hdr_encode(unsigned char out[BOOT_PROTO_HDR_SIZE], const struct boot_msg_hdr *h);
int boot_proto_hdr_decode(const unsigned char in[BOOT_PROTO_HDR_SIZE], struct boot_msg_hdr *h,
                          uint32_t max_len);

/* Move exactly len bytes. Retries on EINTR and short transfers; on a
 * non-blocking fd waits with poll(). timeout_ms < 0 waits forever, otherwise
 * it bounds the whole transfer. read_all: BOOT_PROTO_ERR_CLOSED when the peer
 * closed before the first byte, ERR_TRUNCATED after it. Writes never raise
 * SIGPIPE on sockets. */
int boot_proto_write_all(int fd, const void *buf, size_t len, int timeout_ms);
int boot_proto_read_all(int fd, void *buf, size_t len, int timeout_ms);

/* Send one message (header + payload). */
int boot_proto_send(int fd, uint16_t type, uint32_t arg, const void *payload, uint32_t len,
                    int timeout_ms);

/* Receive one message. *payload is malloc'ed (NULL when len is 0) and
 * belongs to the caller; it is set only on success. */
int boot_proto_recv(int fd, struct boot_msg_hdr *h, void **payload, uint32_t max_len,
                    int timeout_ms);

/* Incremental receiver for a non-blocking fd (the launcher's event loop). */
struct boot_proto_rx {
    unsigned char hdr_buf[BOOT_PROTO_HDR_SIZE];
    size_t got; /* bytes of the current message received so far */
    struct boot_msg_hdr hdr;
    unsigned char *payload;
};

void boot_proto_rx_init(struct boot_proto_rx *rx);
void boot_proto_rx_fini(struct boot_proto_rx *rx);
/* Read what is available. Returns 1 when a whole message is ready in rx->hdr
 * and rx->payload (take the payload and set it to NULL, or leave it: the next
 * step frees it), 0 when more bytes are needed (EAGAIN), or a negative status:
 * ERR_CLOSED (clean end), ERR_TRUNCATED, ERR_BADHDR, ERR_TOOBIG, ERR_SYS. */
int boot_proto_rx_step(struct boot_proto_rx *rx, int fd, uint32_t max_len);

#endif
