// Addresses for the ENet transport: "host:port" text (an IPv4 address or a host name, and a
// port) to ENet's address, and what a failed bind means in words a player can act on. Part of
// netplay/io/ (the only room that touches sockets): only enet_transport.cpp includes it, as
// it includes <enet/enet.h>, a private dependency of the io library.
#pragma once

#include <enet/enet.h>

#include <string>

#include "netplay/base/result.h"

namespace framelock::netplay {

// What an address is for: listening allows an empty host (every interface) and port 0 (the
// OS picks one); connecting needs both.
enum class EnetAddressUse { kListen, kConnect };

// "host:port" → ENetAddress. Dotted numbers are parsed here, without DNS, so a typo never
// waits on a resolver; a host name is resolved with a blocking DNS lookup. kUsage errors name
// the text and what is wrong with it (malformed, IPv6, port out of range, unresolvable).
Result<ENetAddress> parse_enet_address(const std::string& text, EnetAddressUse use);

// Why ENet could not create a host bound to `bind_address`, from the errno it left (0: ENet
// failed by itself): kUsage for what the user can change (port in use, privileged port, no
// such interface), kIo otherwise.
Error enet_listen_error(const std::string& bind_address, int error);

}  // namespace framelock::netplay
