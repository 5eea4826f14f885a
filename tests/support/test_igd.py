#!/usr/bin/env python3
"""A minimal UPnP Internet Gateway Device for framelock's UPnP tests.

Debian's miniupnpd refuses to serve an external address from a reserved range, and the
NAT lab's "internet" uses the documentation ranges; so the client is tested against this
stand-in instead. It speaks just enough of UPnP IGD:1 for libminiupnpc:

- SSDP: answers M-SEARCH (multicast on 239.255.255.250:1900, joined on --ssdp-iface, and
  unicast to that port) with the LOCATION of its description;
- HTTP: /rootDesc.xml (InternetGatewayDevice:1 > WANDevice:1 > WANConnectionDevice:1 with
  WANIPConnection:1 and WANCommonInterfaceConfig:1);
- SOAP on /ctl/IPConn: GetStatusInfo, GetExternalIPAddress, AddPortMapping,
  DeletePortMapping, GetSpecificPortMappingEntry, GetGenericPortMappingEntry (and
  GetCommonLinkProperties on /ctl/CommonIfCfg); mappings with a lease expire;
- GET /mappings: the current mappings as JSON, for the tests to check, each with the
  number of times it was added (a renewal re-adds it); GET /stats: totals.

    python3 tests/support/test_igd.py --http-addr 127.0.0.1:0 --port-file F \
        --external-ip 203.0.113.7 [--ssdp-iface 127.0.0.1] [--refuse 606] \
        [--taken PORT] [--duration S]

Standard library only. Exits on SIGTERM or SIGINT, and after --duration seconds (default
300: a test that forgets it does not leave it running for long).
"""

import argparse
import json
import os
import signal
import subprocess
import socket
import struct
import sys
import threading
import time
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SSDP_GROUP = "239.255.255.250"
SSDP_PORT = 1900
IGD = "urn:schemas-upnp-org:device:InternetGatewayDevice:1"
WAN_DEVICE = "urn:schemas-upnp-org:device:WANDevice:1"
WAN_CONN_DEVICE = "urn:schemas-upnp-org:device:WANConnectionDevice:1"
WAN_IP = "urn:schemas-upnp-org:service:WANIPConnection:1"
WAN_CIF = "urn:schemas-upnp-org:service:WANCommonInterfaceConfig:1"
UUID = "uuid:f1a0c0de-0000-4000-8000-000000000001"
SEARCH_TARGETS = {"ssdp:all", "upnp:rootdevice", IGD, WAN_DEVICE, WAN_CONN_DEVICE, WAN_IP, UUID}

ERRORS = {
    402: "Invalid Args",
    501: "Action Failed",
    606: "Action not authorized",
    713: "SpecifiedArrayIndexInvalid",
    714: "NoSuchEntryInArray",
    716: "WildCardNotPermittedInExtPort",
    718: "ConflictInMappingEntry",
    724: "SamePortValuesRequired",
    725: "OnlyPermanentLeasesSupported",
}


def root_description():
    def service(kind, name):
        return (f"<service><serviceType>{kind}</serviceType><serviceId>urn:upnp-org:serviceId:"
                f"{name}</serviceId><SCPDURL>/{name}.xml</SCPDURL><controlURL>/ctl/{name}"
                f"</controlURL><eventSubURL>/evt/{name}</eventSubURL></service>")

    return ('<?xml version="1.0"?>\n'
            '<root xmlns="urn:schemas-upnp-org:device-1-0">'
            "<specVersion><major>1</major><minor>0</minor></specVersion>"
            f"<device><deviceType>{IGD}</deviceType><friendlyName>framelock test IGD"
            f"</friendlyName><manufacturer>framelock</manufacturer><modelName>test_igd"
            f"</modelName><UDN>{UUID}</UDN>"
            f"<deviceList><device><deviceType>{WAN_DEVICE}</deviceType>"
            f"<friendlyName>WAN device</friendlyName><UDN>{UUID}-wan</UDN>"
            f"<serviceList>{service(WAN_CIF, 'CommonIfCfg')}</serviceList>"
            f"<deviceList><device><deviceType>{WAN_CONN_DEVICE}</deviceType>"
            f"<friendlyName>WAN connection</friendlyName><UDN>{UUID}-conn</UDN>"
            f"<serviceList>{service(WAN_IP, 'IPConn')}</serviceList>"
            "</device></deviceList></device></deviceList></device></root>\n")


def soap_body(inner):
    return ('<?xml version="1.0"?>\n'
            '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" '
            's:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>'
            f"{inner}</s:Body></s:Envelope>\n")


def soap_response(service, action, values):
    args = "".join(f"<{k}>{v}</{k}>" for k, v in values.items())
    return soap_body(f'<u:{action}Response xmlns:u="{service}">{args}</u:{action}Response>')


def soap_fault(code):
    return soap_body(
        "<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring>"
        '<detail><UPnPError xmlns="urn:schemas-upnp-org:control-1-0">'
        f"<errorCode>{code}</errorCode><errorDescription>{ERRORS.get(code, 'Error')}"
        "</errorDescription></UPnPError></detail></s:Fault>")


class UpnpError(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Gateway:
    """The port mapping table. Keyed by (remote host, external port, protocol); thread-safe."""

    def __init__(self, external_ip, refuse, taken, forward_on=None):
        self.external_ip = external_ip
        # A real router forwards what it maps: with --forward-on WAN, every mapping is also an
        # nftables DNAT rule in this namespace (table ip test_igd), kept in step with the table.
        self.forward_on = forward_on
        self.refuse = refuse
        self.lock = threading.Lock()
        self.mappings = {}
        self.adds = 0
        self.deletes = 0
        self.started = time.monotonic()
        for port in taken:
            # Someone else's mapping: adding this port for another client is a conflict.
            self.mappings[("", port, "UDP")] = self.entry(port, "UDP", "192.0.2.99", port,
                                                          "someone else", 0)

    @staticmethod
    def entry(ext_port, proto, client, int_port, description, lease):
        return {"remote_host": "", "external_port": ext_port, "protocol": proto,
                "internal_client": client, "internal_port": int_port,
                "description": description, "enabled": True, "lease": lease,
                "expires": time.monotonic() + lease if lease else None, "adds": 0}

    def expire(self):
        now = time.monotonic()
        gone = [k for k, m in self.mappings.items() if m["expires"] and m["expires"] <= now]
        for key in gone:
            del self.mappings[key]
        if gone:
            self.sync_forwards()

    def sync_forwards(self):
        """Rewrites the DNAT rules from the mapping table (called with the lock held)."""
        if not self.forward_on:
            return
        lines = ["table ip test_igd", "delete table ip test_igd", "table ip test_igd {",
                 "  chain prerouting {",
                 "    type nat hook prerouting priority dstnat - 1; policy accept;"]
        for m in self.mappings.values():
            if m["internal_client"] == "192.0.2.99":
                continue  # the stand-in for someone else's mapping
            lines.append(f'    iifname "{self.forward_on}" {m["protocol"].lower()} dport '
                         f'{m["external_port"]} dnat to {m["internal_client"]}:{m["internal_port"]}')
        lines += ["  }", "}"]
        subprocess.run(["nft", "-f", "-"], input="\n".join(lines) + "\n", text=True,
                       check=True)

    def remove_forwards(self):
        if self.forward_on:
            subprocess.run(["nft", "delete", "table", "ip", "test_igd"], check=False,
                           stderr=subprocess.DEVNULL)

    def remaining(self, m):
        return max(0, int(round(m["expires"] - time.monotonic()))) if m["expires"] else 0

    def add(self, a):
        try:
            ext_port = int(a.get("NewExternalPort", ""))
            int_port = int(a.get("NewInternalPort", ""))
            lease = int(a.get("NewLeaseDuration", "0") or 0)
        except ValueError:
            raise UpnpError(402)
        proto = a.get("NewProtocol", "").upper()
        client = a.get("NewInternalClient", "")
        if proto not in ("UDP", "TCP") or not client or not 0 < int_port < 65536:
            raise UpnpError(402)
        if ext_port == 0:
            raise UpnpError(716)
        if self.refuse:
            raise UpnpError(self.refuse)
        key = (a.get("NewRemoteHost", ""), ext_port, proto)
        with self.lock:
            self.expire()
            old = self.mappings.get(key)
            if old and old["internal_client"] != client:
                raise UpnpError(718)
            m = self.entry(ext_port, proto, client, int_port,
                           a.get("NewPortMappingDescription", ""), lease)
            m["adds"] = (old["adds"] if old else 0) + 1
            m["remote_host"] = key[0]
            self.mappings[key] = m
            self.adds += 1
            if not old:
                try:
                    self.sync_forwards()
                except (OSError, subprocess.SubprocessError) as e:
                    # A router that cannot forward the port says so (the mapping undone):
                    # UPnP's "Action Failed", never a connection closed without an answer.
                    del self.mappings[key]
                    self.adds -= 1
                    raise UpnpError(501) from e

    @staticmethod
    def key_of(a):
        """The (remote host, external port, protocol) an action names; 402 when malformed."""
        try:
            return (a.get("NewRemoteHost", ""), int(a.get("NewExternalPort", "")),
                    a.get("NewProtocol", "").upper())
        except ValueError:
            raise UpnpError(402)

    def delete(self, a):
        key = self.key_of(a)
        with self.lock:
            self.expire()
            if key not in self.mappings:
                raise UpnpError(714)
            del self.mappings[key]
            self.deletes += 1
            self.sync_forwards()

    def describe(self, m):
        return {"NewRemoteHost": m["remote_host"], "NewExternalPort": m["external_port"],
                "NewProtocol": m["protocol"], "NewInternalPort": m["internal_port"],
                "NewInternalClient": m["internal_client"], "NewEnabled": 1,
                "NewPortMappingDescription": m["description"],
                "NewLeaseDuration": self.remaining(m)}

    def specific(self, a):
        key = self.key_of(a)
        with self.lock:
            self.expire()
            m = self.mappings.get(key)
            if not m:
                raise UpnpError(714)
            values = self.describe(m)
        for k in ("NewRemoteHost", "NewExternalPort", "NewProtocol"):
            del values[k]
        return values

    def generic(self, a):
        try:
            index = int(a.get("NewPortMappingIndex", ""))
        except ValueError:
            raise UpnpError(402)
        with self.lock:
            self.expire()
            ordered = sorted(self.mappings.values(), key=lambda m: (m["external_port"],
                                                                    m["protocol"]))
            if not 0 <= index < len(ordered):
                raise UpnpError(713)
            return self.describe(ordered[index])

    def listing(self):
        with self.lock:
            self.expire()
            return [{"protocol": m["protocol"], "external_port": m["external_port"],
                     "internal_client": m["internal_client"],
                     "internal_port": m["internal_port"], "lease": m["lease"],
                     "remaining": self.remaining(m), "description": m["description"],
                     "adds": m["adds"]}
                    for m in sorted(self.mappings.values(),
                                    key=lambda m: (m["external_port"], m["protocol"]))]

    def stats(self):
        with self.lock:
            self.expire()
            return {"adds": self.adds, "deletes": self.deletes, "mappings": len(self.mappings)}

    def call(self, service, action, a):
        """The response body of one SOAP action, or UpnpError."""
        if service == WAN_CIF and action == "GetCommonLinkProperties":
            return {"NewWANAccessType": "Ethernet", "NewLayer1UpstreamMaxBitRate": 100000000,
                    "NewLayer1DownstreamMaxBitRate": 100000000,
                    "NewPhysicalLinkStatus": "Up"}
        if service != WAN_IP:
            raise UpnpError(401)
        if action == "GetStatusInfo":
            return {"NewConnectionStatus": "Connected", "NewLastConnectionError": "ERROR_NONE",
                    "NewUptime": int(time.monotonic() - self.started)}
        if action == "GetConnectionTypeInfo":
            return {"NewConnectionType": "IP_Routed", "NewPossibleConnectionTypes": "IP_Routed"}
        if action == "GetExternalIPAddress":
            return {"NewExternalIPAddress": self.external_ip}
        if action == "AddPortMapping":
            self.add(a)
            return {}
        if action == "DeletePortMapping":
            self.delete(a)
            return {}
        if action == "GetSpecificPortMappingEntry":
            return self.specific(a)
        if action == "GetGenericPortMappingEntry":
            return self.generic(a)
        raise UpnpError(401)


def local_name(tag):
    return tag.rsplit("}", 1)[-1]


def parse_action(body):
    """The SOAP request's action name and its arguments (by local name)."""
    envelope = ET.fromstring(body)
    for element in envelope.iter():
        if local_name(element.tag) == "Body":
            for call in element:
                return local_name(call.tag), {local_name(c.tag): (c.text or "").strip()
                                              for c in call}
    raise ValueError("no SOAP body")


def make_handler(gateway, log):
    class Handler(BaseHTTPRequestHandler):
        server_version = "framelock-test-igd/1.0"

        def log_message(self, fmt, *args):
            log(f"http: {self.address_string()} {fmt % args}")

        def reply(self, status, body, kind):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/rootDesc.xml":
                self.reply(200, root_description(), 'text/xml; charset="utf-8"')
            elif self.path == "/mappings":
                self.reply(200, json.dumps(gateway.listing()) + "\n", "application/json")
            elif self.path == "/stats":
                self.reply(200, json.dumps(gateway.stats()) + "\n", "application/json")
            else:
                self.reply(404, "not found\n", "text/plain")

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0") or 0)
            body = self.rfile.read(length)
            soap_action = self.headers.get("SOAPAction", "").strip().strip('"')
            service, _, action = soap_action.partition("#")
            try:
                name, args = parse_action(body)
            except (ET.ParseError, ValueError):
                self.reply(400, "malformed SOAP request\n", "text/plain")
                return
            action = action or name
            try:
                values = gateway.call(service, action, args)
            except UpnpError as e:
                cause = f" ({e.__cause__!r})" if e.__cause__ else ""
                log(f"soap: {action} {args} -> error {e.code}{cause}")
                self.reply(500, soap_fault(e.code), 'text/xml; charset="utf-8"')
                return
            log(f"soap: {action} {args} -> ok")
            self.reply(200, soap_response(service, action, values), 'text/xml; charset="utf-8"')

    return Handler


def open_ssdp(iface, log):
    """The SSDP socket: bound to the SSDP port and in the multicast group on `iface`. Opened
    before the port file is written, so that a test that read the port file finds the gateway
    ready to answer its first M-SEARCH (which the kernel queues until the thread reads it)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if hasattr(socket, "SO_REUSEPORT"):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("", SSDP_PORT))
    membership = struct.pack("4s4s", socket.inet_aton(SSDP_GROUP), socket.inet_aton(iface))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
    sock.settimeout(0.2)
    log(f"ssdp: listening on {SSDP_GROUP}:{SSDP_PORT} (interface {iface}) and unicast")
    return sock


def serve_ssdp(sock, location, stop, log):
    """Answers M-SEARCH requests on `sock` for the gateway's types until `stop` is set."""
    while not stop.is_set():
        try:
            data, peer = sock.recvfrom(4096)
        except socket.timeout:
            continue
        lines = data.decode("latin-1").split("\r\n")
        if not lines or not lines[0].upper().startswith("M-SEARCH"):
            continue
        headers = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().upper()] = value.strip()
        target = headers.get("ST", "")
        if target not in SEARCH_TARGETS:
            log(f"ssdp: {peer[0]}:{peer[1]} searched {target!r}: not us")
            continue
        st = IGD if target == "ssdp:all" else target
        usn = UUID if st == UUID else f"{UUID}::{st}"
        reply = ("HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\nEXT:\r\n"
                 f"LOCATION: {location}\r\nSERVER: Linux UPnP/1.1 framelock-test-igd/1.0\r\n"
                 f"ST: {st}\r\nUSN: {usn}\r\n\r\n")
        sock.sendto(reply.encode(), peer)
        log(f"ssdp: {peer[0]}:{peer[1]} searched {target}: answered {location}")
    sock.close()


def write_atomically(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--http-addr", default="127.0.0.1:0",
                        help="ADDR:PORT of the description and control server (port 0: any)")
    parser.add_argument("--ssdp-iface", help="answer SSDP M-SEARCH, joining the multicast "
                        "group on the interface with this IPv4 address (default: no SSDP)")
    parser.add_argument("--external-ip", default="203.0.113.1",
                        help="the address GetExternalIPAddress reports")
    parser.add_argument("--port-file", help="write the HTTP port here once listening (for HTTP, and for SSDP "
                        "with --ssdp-iface): a test that read it may search at once")
    parser.add_argument("--refuse", type=int, default=0,
                        help="fail every AddPortMapping with this UPnP error code")
    parser.add_argument("--taken", type=int, action="append", default=[],
                        help="an external UDP port already mapped to another client")
    parser.add_argument("--duration", type=float, default=300,
                        help="exit after this many seconds")
    parser.add_argument("--forward-on", metavar="WAN",
                        help="really forward what is mapped: an nftables DNAT rule per mapping "
                             "for datagrams coming in on interface WAN (needs root, in the "
                             "router's namespace)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    opts = parser.parse_args()

    def log(line):
        if opts.verbose:
            print(f"test_igd: {line}", file=sys.stderr, flush=True)

    host, _, port = opts.http_addr.rpartition(":")
    gateway = Gateway(opts.external_ip, opts.refuse, opts.taken, opts.forward_on)
    with gateway.lock:
        gateway.sync_forwards()
    httpd = ThreadingHTTPServer((host, int(port)), make_handler(gateway, log))
    httpd.daemon_threads = True
    http_port = httpd.server_address[1]
    stop = threading.Event()

    def on_signal(_signum, _frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1},
                     daemon=True).start()
    if opts.ssdp_iface:
        advertised = host if host not in ("", "0.0.0.0") else opts.ssdp_iface
        location = f"http://{advertised}:{http_port}/rootDesc.xml"
        ssdp = open_ssdp(opts.ssdp_iface, log)
        threading.Thread(target=serve_ssdp, args=(ssdp, location, stop, log),
                         daemon=True).start()
    if opts.port_file:
        write_atomically(opts.port_file, f"{http_port}\n")
    print(f"test_igd: http on {host}:{http_port}, external address {opts.external_ip}",
          file=sys.stderr, flush=True)
    stop.wait(opts.duration)
    httpd.shutdown()
    gateway.remove_forwards()
    return 0


if __name__ == "__main__":
    sys.exit(main())
