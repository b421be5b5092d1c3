/* SPDX-License-Identifier: MIT */
/*
 * The classes of segment the own TCP rejects (net/tcp.h), each counted by
 * its name.  A list and an enum only, so that the gateway's counter table
 * (gateway/counters.h) can name a row after each without linking anything.
 *
 *   out_of_window  the sequence number outside the receive window (an old
 *                  duplicate, or data beyond the window): dropped, ACKed
 *   ack_unsent     an ACK of bytes never sent (SEG.ACK > SND.NXT): dropped,
 *                  ACKed (RFC 5961 5.2)
 *   ack_too_old    an ACK below SND.UNA - MAX.SND.WND: dropped, ACKed
 *                  (RFC 5961 5.2)
 *   rst_in_window  a RST in the window but not at RCV.NXT: a challenge ACK
 *                  (RFC 5961 3.2)
 *   syn            a SYN on a synchronized connection: a challenge ACK
 *                  (RFC 5961 4.2)
 *   no_ack         neither ACK, RST nor SYN: dropped (RFC 9293 3.10.7.4)
 *   after_fin      data or a FIN beyond the peer's FIN: dropped
 */
#ifndef NET_TCP_REJ_H
#define NET_TCP_REJ_H

#define TCP_REJECTS(X) \
	X(OUT_OF_WINDOW, "out_of_window") \
	X(ACK_UNSENT, "ack_unsent") \
	X(ACK_TOO_OLD, "ack_too_old") \
	X(RST_IN_WINDOW, "rst_in_window") \
	X(SYN, "syn") \
	X(NO_ACK, "no_ack") \
	X(AFTER_FIN, "after_fin")

enum tcp_rej {
#define TCP_REJ_ENUM_(id, s) TCP_REJ_##id,
	TCP_REJECTS(TCP_REJ_ENUM_)
#undef TCP_REJ_ENUM_
	TCP_REJ_NR,
};

#endif /* NET_TCP_REJ_H */
