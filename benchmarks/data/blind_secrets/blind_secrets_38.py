# ruff: noqa: E501, UP031
"""Blind corpus 38: network and telecom engineers' memories.

Router and switch configs (Cisco enable secrets and type 7, Juniper $9$ and
plain-text-password lines, MikroTik, Fortinet, Palo Alto API keys), RADIUS and
TACACS+ shared secrets, SNMPv3 auth/priv passphrases and v2c communities,
BGP/OSPF MD5 keys, IPsec pre-shared keys, WireGuard and OpenVPN configs, VoIP
(Asterisk sip.conf/pjsip secrets, FreeSWITCH, SIP trunk registrations), SIM/eSIM
Ki and OPc values, UDS seed-key secrets, out-of-band console passwords,
NetBox/Ansible inventory vars. Look-alikes: MAC and IP addresses, ASNs, serial
numbers, IMSI/ICCID/IMEI (synthetic), interface names, VLAN ids, certificate
fingerprints, public keys, config lines where the secret is already encrypted
or replaced, hashes in show outputs, default SNMP communities explicitly disabled.

Written blind on 2026-12-07: the author did not read the detector, its tests or
any earlier corpus.

Run: python benchmarks/data/blind_secrets/blind_secrets_38.py [out.jsonl]
(JSONL rows on stdout without an argument.)

Kinds
-----
secret (69 kinds):
    cisco_enable_password_plain, cisco_enable_secret_plain0, cisco_type7,
    cisco_username_password_plain, juniper_9_password, juniper_snmp_9,
    juniper_plain_text_password, mikrotik_user_password, mikrotik_wifi_psk,
    mikrotik_l2tp_ipsec_secret, fortigate_admin_password, fortinet_api_token,
    paloalto_api_key, radius_shared_secret, freeradius_client_secret,
    tacacs_key, snmpv3_auth_passphrase, snmpv3_priv_passphrase,
    snmp_v2c_community_rw, snmp_v2c_community_ro, bgp_md5_password,
    bird_bgp_password, ospf_md5_key, key_chain_key_string, ntp_auth_key,
    vrrp_keepalived_auth_pass, ipsec_isakmp_psk, strongswan_psk,
    wireguard_private_key, wireguard_preshared_key, openvpn_static_key,
    openvpn_auth_user_pass, openvpn_inline_private_key, asterisk_sip_secret,
    pjsip_auth_password, asterisk_ami_secret, asterisk_ari_password,
    freeswitch_gateway_password, freeswitch_default_password,
    sip_trunk_register, voip_phone_provisioning_password, sim_ki, sim_opc,
    milenage_op, sim_adm1_key, esim_suci_home_network_key, uds_seed_key_secret,
    uds_aes_seedkey, oob_console_password, ipmi_bmc_password,
    ansible_password_var, ansible_vault_password, netbox_api_token,
    netbox_secret_key, netmiko_device_password, netmiko_enable_secret,
    rancid_cloginrc, oxidized_password, meraki_api_key, arista_eapi_password,
    twilio_auth_token, smpp_bind_password, wifi_wpa_passphrase,
    eap_8021x_password, pppoe_chap_secret, vyos_edgeos_password,
    aruba_hp_manager_password, ldap_bind_password_device, routeros_api_password
benign (93 kinds):
    mac_address, mac_address_cisco_dotted, ipv6_address, asn_and_peering,
    device_serial, fortigate_serial, juniper_serial, imsi_synthetic,
    iccid_synthetic, imei_synthetic, esim_eid, interface_names, vlan_ids,
    cert_fingerprint_sha256, ssh_host_key_fingerprint, wireguard_public_key,
    ssh_public_key, cisco_show_crypto_mypubkey, redacted_removed, masked_stars,
    juniper_secret_data_omitted, snmp_default_community_disabled,
    ansible_vault_reference, ansible_vault_ciphertext,
    netbox_docs_example_token, netbox_object_ids, uuid_object_id,
    firmware_md5_show, config_backup_sha256, git_commit_sha, bgp_communities,
    route_distinguisher, bgp_router_id, ipsec_spi_show, ike_cookies,
    snmp_engine_id, snmpv3_user_no_keys, key_chain_ids_only, sip_call_id_tags,
    sip_digest_nonce_challenge, sip_uri_no_password,
    asterisk_secret_placeholder, voip_provisioning_filename,
    twilio_account_sid, meraki_network_id, milenage_test_vectors_3gpp,
    auth_vector_rand_autn, uds_seed_from_ecu, uds_did_and_can_ids,
    vin_synthetic, cell_identifiers, openvpn_auth_file_reference,
    openvpn_ca_certificate, dh_params, secret_vault_pointer, psk_policy_talk,
    cisco_password_encryption_talk, crypto_key_generate_cmd, wg_genkey_command,
    docker_image_digest, prefix_list, lldp_chassis_id, ntp_trusted_key_id,
    revoked_api_key_stated, license_udi, radius_accounting_session_id,
    esim_activation_code_doc_example, console_port_mapping,
    password_prompt_transcript, snmp_oid, hsrp_group_vip,
    jinja_template_secret_var, env_var_reference, wifi_bssid,
    ipv4_nat_translation, hex_rack_asset_tag, pjsip_identify_match,
    placeholder_example_value, password_change_log, sim_card_public_fields,
    tcp_ao_key_id, hash_show_user, rsa_key_size_talk, dot1x_eap_identity,
    certificate_serial, pcap_filter, radius_message_authenticator,
    ospf_area_and_cost, phone_number_did, mpls_labels, bfd_and_timers,
    mikrotik_identity_export, pan_hostid
"""

import json
import random
import string
import sys

SEED = 3838

B64 = string.ascii_letters + string.digits + "+/"
ALNUM = string.ascii_letters + string.digits
J9 = string.ascii_letters + string.digits + "./-"
WORDS = [
    "copper",
    "fiber",
    "lambda",
    "transit",
    "backhaul",
    "uplink",
    "spine",
    "leaf",
    "anycast",
    "peering",
    "marble",
    "harbor",
    "pylon",
    "quartz",
    "tundra",
    "falcon",
    "ember",
    "granite",
    "orbit",
    "saffron",
    "cobalt",
]


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows: list[dict] = []

    def pick(s, n):
        return "".join(r.choice(s) for _ in range(n))

    def hx(n, up=False):
        v = pick("0123456789abcdef", n)
        return v.upper() if up else v

    def pw():
        style = r.randrange(4)
        if style == 0:
            return (
                r.choice(WORDS).capitalize()
                + r.choice("!#%*-_.@")
                + r.choice(WORDS)
                + str(r.randrange(10, 99))
            )
        if style == 1:
            return pick(ALNUM, r.randrange(14, 22))
        if style == 2:
            return pick(ALNUM + "!#%^*-_=+", r.randrange(12, 20))
        return r.choice(WORDS) + pick(string.digits, 3) + pick("!$%&", 1) + pick(ALNUM, 6)

    def wgkey():
        return pick(B64, 42) + r.choice("AEIMQUYcgkosw048") + "="

    def ip():
        return "10.%d.%d.%d" % (r.randrange(256), r.randrange(256), r.randrange(1, 255))

    def pubip():
        return r.choice(["198.51.100", "203.0.113", "192.0.2"]) + ".%d" % r.randrange(1, 255)

    def host():
        return "%s-%s%02d" % (
            r.choice(["ams", "fra", "lon", "nyc", "sjc", "sin", "par", "mad", "waw"]),
            r.choice(["core", "edge", "agg", "pe", "br", "fw", "tor", "oob"]),
            r.randrange(1, 40),
        )

    def mac(sep=":"):
        return sep.join(hx(2) for _ in range(6))

    def fill(t, v):
        out = t.replace("@V@", v)
        while "@H@" in out:
            out = out.replace("@H@", host(), 1)
        while "@IP@" in out:
            out = out.replace("@IP@", ip(), 1)
        while "@PIP@" in out:
            out = out.replace("@PIP@", pubip(), 1)
        while "@N@" in out:
            out = out.replace("@N@", str(r.randrange(2, 4000)), 1)
        return out

    def add(label, kind, text, value):
        assert value in text, (kind, value, text)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    def S(kind, gen, *tpls):
        for t in tpls:
            v = gen()
            add("secret", kind, fill(t, v), v)

    def B(kind, gen, *tpls):
        for t in tpls:
            v = gen() if gen else ""
            add("benign", kind, fill(t, v), v)

    def type7():
        return "%02d" % r.randrange(0, 16) + hx(2 * r.randrange(8, 14), up=True)

    def j9():
        return "$9$" + pick(J9, r.randrange(18, 40))

    # ------------------------------------------------------------ secrets
    S(
        "cisco_enable_password_plain",
        pw,
        "@H@ still has the old style line, fix next window:\nenable password @V@",
        "Console on @H@ asks for enable; it's `enable password @V@` in the running config (no service password-encryption).",
        "hostname @H@\n!\nenable password 0 @V@\n!\nusername netops privilege 15",
    )
    S(
        "cisco_enable_secret_plain0",
        pw,
        "pushed to all access switches: `enable secret 0 @V@` (IOS hashes it on save)",
        "conf t\n enable secret 0 @V@\n end\nwr mem",
        "Reminder for the lab stack @H@: enable secret is @V@ until the TACACS cutover.",
    )
    S(
        "cisco_type7",
        type7,
        "username backup privilege 15 password 7 @V@",
        "the type 7 on @H@ decodes fine, here it is for the migration: password 7 @V@",
        "line vty 0 4\n password 7 @V@\n login\n transport input ssh",
    )
    S(
        "cisco_username_password_plain",
        pw,
        "username netops privilege 15 password 0 @V@",
        "Break-glass local user on all ISR4331s: user `breakglass`, pass `@V@`.",
        "Added a local fallback account on @H@ -> username ops-local secret 0 @V@",
    )
    S(
        "juniper_9_password",
        j9,
        'set system ntp authentication-key 1 type md5 value "@V@"',
        'set system radius-server @IP@ secret "@V@"',
        'protocols {\n    bgp {\n        group TRANSIT {\n            authentication-key "@V@"; ## SECRET-DATA\n        }\n    }\n}',
    )
    S(
        "juniper_snmp_9",
        j9,
        'snmp { v3 { usm { local-engine { user nms { authentication-sha { authentication-key "@V@"; } } } } } }',
        'The $9$ for the SNMPv3 priv key on the MX204s is "@V@" (decodes with the usual perl script).',
        'set snmp v3 usm local-engine user zabbix privacy-aes128 privacy-key "@V@"',
    )
    S(
        "juniper_plain_text_password",
        pw,
        "root@@H@# set system root-authentication plain-text-password\nNew password: @V@\nRetype new password: @V@",
        "Junos root on the SRX lab box, typed in via plain-text-password: @V@",
        "set system login user automation class super-user authentication plain-text-password  -> used @V@",
    )
    S(
        "mikrotik_user_password",
        pw,
        '/user add name=noc group=full password=@V@ comment="NOC rw"',
        "mikrotik @H@: admin password changed to @V@ after the winbox scare",
        '/user set [find name=admin] password="@V@"',
    )
    S(
        "mikrotik_wifi_psk",
        pw,
        '/interface wireless security-profiles set [ find default=yes ] authentication-types=wpa2-psk mode=dynamic-keys wpa2-pre-shared-key="@V@"',
        "guest SSID on the hAP units uses wpa2-pre-shared-key=@V@",
        "/interface wifiwave2 security set sec1 passphrase=@V@",
    )
    S(
        "mikrotik_l2tp_ipsec_secret",
        pw,
        "/interface l2tp-server server set enabled=yes use-ipsec=required ipsec-secret=@V@",
        "RouterOS road-warrior VPN: L2TP/IPsec, shared secret @V@, users in /ppp secret",
        '/ppp secret add name=jdoe password="@V@" service=l2tp profile=vpn',
    )
    S(
        "fortigate_admin_password",
        pw,
        'config system admin\n    edit "admin"\n        set password @V@\n    next\nend',
        "FortiGate @H@ GUI login: admin / @V@ (change after handover)",
        "FGT local user for the IPsec dialup:\nconfig user local\n edit vpnuser\n  set passwd @V@\n next\nend",
    )
    S(
        "fortinet_api_token",
        lambda: pick(string.ascii_lowercase + string.digits, 30),
        'curl -k -H "Authorization: Bearer @V@" https://@IP@/api/v2/cmdb/firewall/address',
        "REST API admin 'ansible-api' on @H@ -> token @V@ (trusthost 10.0.0.0/8)",
        'fortios provider in terraform:\n  hostname = "@IP@"\n  token    = "@V@"\n  insecure = true',
    )
    S(
        "paloalto_api_key",
        lambda: "LUFRPT" + pick(B64, r.randrange(60, 90)) + "==",
        "curl -k 'https://@H@/api/?type=op&cmd=<show><system><info/></system></show>&key=@V@'",
        'PAN-OS keygen for svc-ansible returned:\n<response status="success"><result><key>@V@</key></result></response>',
        "panorama api key (for the tag sync script): @V@",
    )
    S(
        "radius_shared_secret",
        pw,
        "radius server ISE-1\n address ipv4 @IP@ auth-port 1812 acct-port 1813\n key 0 @V@",
        "radius-server host @IP@ key @V@",
        "shared secret between the WLC and NPS is @V@ - same on both nodes",
    )
    S(
        "freeradius_client_secret",
        pw,
        "client @H@ {\n    ipaddr = @IP@\n    secret = @V@\n    nas_type = cisco\n}",
        "/etc/freeradius/3.0/clients.conf: added the new APs subnet, secret = @V@",
        "radtest test test123 localhost 0 @V@   # last arg is the localhost client secret",
    )
    S(
        "tacacs_key",
        pw,
        "tacacs server TAC1\n address ipv4 @IP@\n key 0 @V@\n single-connection",
        "tacacs-server host @IP@ key @V@",
        'tac_plus.conf\nkey = "@V@"\naccounting file = /var/log/tac_plus.acct',
    )
    S(
        "snmpv3_auth_passphrase",
        pw,
        "snmp-server user librenms NMS-GRP v3 auth sha @V@ priv aes 128 <see priv row>",
        "SNMPv3 for the Zabbix template: user zbx, authProtocol SHA, authPassphrase @V@",
        "snmpwalk -v3 -l authNoPriv -u monitor -a SHA -A '@V@' @IP@ sysDescr",
    )
    S(
        "snmpv3_priv_passphrase",
        pw,
        "snmpwalk -v3 -l authPriv -u monitor -a SHA -A authpass-in-vault -x AES -X '@V@' @IP@",
        "privacy (AES128) key for the v3 user 'observium' on every @H@-class box: @V@",
        "{$SNMPV3_PRIVPASSPHRASE} = @V@  (Zabbix global macro, set it as secret text next time)",
    )
    S(
        "snmp_v2c_community_rw",
        lambda: r.choice(WORDS) + pick(ALNUM, 8),
        "snmp-server community @V@ RW 99",
        "The write community on the old Catalysts is @V@ - used by the config-backup tftp trick",
        "snmpset -v2c -c @V@ @IP@ 1.3.6.1.4.1.9.9.96.1.1.1.1.2.@N@ i 1",
    )
    S(
        "snmp_v2c_community_ro",
        lambda: pick(ALNUM, r.randrange(10, 16)),
        "snmp-server community @V@ RO SNMP-ACL",
        "librenms: $config['snmp']['community'] = array(\"@V@\");",
        "snmpwalk -v2c -c @V@ @IP@ ifDescr",
    )
    S(
        "bgp_md5_password",
        pw,
        "router bgp 64512\n neighbor TRANSIT-V4 peer-group\n neighbor TRANSIT-V4 remote-as 174\n neighbor TRANSIT-V4 password @V@\n neighbor @PIP@ peer-group TRANSIT-V4",
        "Transit provider gave us the session MD5: @V@ (for both v4 and v6 sessions)",
        "FRR: neighbor PEERS password @V@",
    )
    S(
        "bird_bgp_password",
        pw,
        'protocol bgp ix_rs1 {\n  local as 64999;\n  neighbor @PIP@ as 6695;\n  password "@V@";\n}',
        'bird2 session to the RS needs password "@V@" per the IX portal',
        'template bgp upstream { password "@V@"; hold time 90; }',
    )
    S(
        "ospf_md5_key",
        pw,
        "interface Gi0/0/1\n ip ospf authentication message-digest\n ip ospf message-digest-key 1 md5 @V@",
        "Area 0 MD5 key for the new PE: @V@ (key id 1)",
        "ospf on the Aristas: ip ospf message-digest-key 10 md5 0 @V@",
    )
    S(
        "key_chain_key_string",
        pw,
        "key chain EIGRP-KC\n key 1\n  key-string @V@\n  accept-lifetime 00:00:00 Jan 1 2026 infinite",
        "IS-IS hello auth key-string on the backbone: @V@",
        "standby 10 authentication md5 key-string @V@",
    )
    S(
        "ntp_auth_key",
        pw,
        "ntp authentication-key 1 md5 @V@\nntp trusted-key 1\nntp authenticate",
        "/etc/ntp.keys on the stratum-2 boxes:\n1 SHA1 @V@",
        "chrony.keys on the PTP/NTP boxes: 5 SHA1 @V@",
    )
    S(
        "vrrp_keepalived_auth_pass",
        lambda: pick(ALNUM, 8),
        "vrrp_instance VI_1 {\n  authentication {\n    auth_type PASS\n    auth_pass @V@\n  }\n}",
        "keepalived pair lb1/lb2 auth_pass is @V@ (8 chars max, PASS mode)",
        "vrrp 5 authentication text @V@",
    )
    S(
        "ipsec_isakmp_psk",
        pw,
        "crypto isakmp key @V@ address @PIP@",
        "Phase 1 PSK agreed with the partner over the phone: @V@",
        "crypto ikev2 keyring KR-AWS\n peer aws1\n  address @PIP@\n  pre-shared-key local @V@\n  pre-shared-key remote @V@",
    )
    S(
        "strongswan_psk",
        lambda: pick(ALNUM + "._", r.randrange(24, 40)),
        '/etc/ipsec.secrets\n@PIP@ @PIP@ : PSK "@V@"',
        "swanctl.conf\nsecrets {\n  ike-branch7 {\n    id = branch7.example.net\n    secret = @V@\n  }\n}",
        "AWS site-to-site tunnel 1 pre-shared key: @V@ (from the generic config download)",
    )
    S(
        "wireguard_private_key",
        wgkey,
        "[Interface]\nPrivateKey = @V@\nAddress = 10.99.0.1/24\nListenPort = 51820",
        "wg0 on @H@: private key is @V@, pubkey already shared with the peers",
        "wg set wg0 private-key <(echo @V@)",
    )
    S(
        "wireguard_preshared_key",
        wgkey,
        "[Peer]\nPublicKey = see netbox\nPresharedKey = @V@\nAllowedIPs = 10.99.0.7/32",
        "PSK for the laptop peer (wg genpsk output): @V@",
        "PresharedKey=@V@",
    )
    S(
        "openvpn_static_key",
        lambda: "\n".join(hx(32) for _ in range(16)),
        "ta.key for the office VPN:\n-----BEGIN OpenVPN Static key V1-----\n@V@\n-----END OpenVPN Static key V1-----",
        "<tls-crypt>\n-----BEGIN OpenVPN Static key V1-----\n@V@\n-----END OpenVPN Static key V1-----\n</tls-crypt>",
    )
    S(
        "openvpn_auth_user_pass",
        pw,
        "/etc/openvpn/client/auth.txt\nsvc-monitor\n@V@",
        "openvpn client for the OOB network uses auth-user-pass creds.txt -> user oob-bot, password @V@",
        "nmcli con mod office-vpn vpn.secrets 'password=@V@'",
    )
    S(
        "openvpn_inline_private_key",
        lambda: pick(B64, 64) + "\n" + pick(B64, 64) + "\n" + pick(B64, 40),
        "client.ovpn\n<key>\n-----BEGIN PRIVATE KEY-----\n@V@\n-----END PRIVATE KEY-----\n</key>",
        "pasted the EC key from the laptop profile:\n-----BEGIN EC PRIVATE KEY-----\n@V@\n-----END EC PRIVATE KEY-----",
    )
    S(
        "asterisk_sip_secret",
        pw,
        "[6001]\ntype=friend\ncontext=internal\nhost=dynamic\nsecret=@V@\ndisallow=all\nallow=ulaw",
        "sip.conf: peer 'yealink-lobby' secret=@V@",
        "Asterisk ext 2045 (front desk) registers with password @V@",
    )
    S(
        "pjsip_auth_password",
        pw,
        "[6001-auth]\ntype=auth\nauth_type=userpass\nusername=6001\npassword=@V@",
        "pjsip.conf trunk auth for the carrier:\n[carrier-auth]\ntype=auth\nusername=4420799@N@\npassword=@V@",
        "pjsip wizard: outbound_auth/password = @V@",
    )
    S(
        "asterisk_ami_secret",
        pw,
        "manager.conf\n[fop2]\nsecret = @V@\ndeny=0.0.0.0/0.0.0.0\npermit=127.0.0.1/255.255.255.0",
        "AMI login for the CRM connector: user crm, secret @V@",
        "Action: Login\nUsername: admin\nSecret: @V@",
    )
    S(
        "asterisk_ari_password",
        pw,
        "ari.conf\n[stasis-app]\ntype = user\nread_only = no\npassword = @V@",
        "ARI websocket: ws://pbx:8088/ari/events?app=ivr&api_key=ivr:@V@",
    )
    S(
        "freeswitch_gateway_password",
        pw,
        '<gateway name="carrier">\n  <param name="username" value="trunk01"/>\n  <param name="password" value="@V@"/>\n</gateway>',
        "FreeSWITCH: external profile gateway password is @V@",
        '<param name="password" value="@V@"/>  <!-- ESL event_socket.conf.xml -->',
    )
    S(
        "freeswitch_default_password",
        pw,
        '<X-PRE-PROCESS cmd="set" data="default_password=@V@"/>',
        "changed FS default_password in vars.xml from 1234 to @V@ (all directory users inherit it)",
    )
    S(
        "sip_trunk_register",
        pw,
        "register => 4415550@N@:@V@@sip.voip-provider.example/4415550100",
        "SIP trunk: registrar sip.voip-provider.example, auth user 88231@N@, password @V@",
        "trunk.conf\n[trunk-out]\nusername=88231\nfromuser=88231\nsecret=@V@\nhost=sip.voip-provider.example",
    )
    S(
        "voip_phone_provisioning_password",
        pw,
        "y0000000000@N@.cfg\naccount.1.user_name = 2045\naccount.1.password = @V@",
        'Polycom provisioning: reg.1.auth.password="@V@"',
        "phone admin web login (all Yealinks): admin / @V@",
    )
    S(
        "sim_ki",
        lambda: hx(32, up=True),
        "IMSI 001010000012@N@ Ki @V@",
        "test SIM #4 (sysmoISIM): KI=@V@ ADM1 in the card sheet",
        "pySim-prog.py -p0 -t sysmoISIM-SJA2 -i 001010000012345 -k @V@ -o see-row",
    )
    S(
        "sim_opc",
        lambda: hx(32),
        "open5gs subscriber: opc=@V@ amf=8000",
        "OPc for the private LTE batch (all 50 cards): @V@",
        "HSS import csv row: 00101000001@N@,8988211000000@N@,ki-see-vault,@V@",
    )
    S(
        "milenage_op",
        lambda: hx(32, up=True),
        "Operator OP (network-wide, never leaves the AuC): @V@",
        "--op @V@ for pySim when the cards were ordered with OP instead of OPc",
    )
    S(
        "sim_adm1_key",
        lambda: pick(string.digits, 8),
        "card 8988211000000123 ADM1 = @V@",
        "pySim-shell verify_adm @V@",
    )
    S(
        "esim_suci_home_network_key",
        lambda: hx(64),
        "SUCI profile A home network private key (x25519): @V@",
        "free5gc udm.yaml SuciProfile: ProtectionScheme 1, PrivateKey: @V@",
    )
    S(
        "uds_seed_key_secret",
        lambda: "0x" + hx(8, up=True),
        "ECU 0x7E0 security access level 0x01: key = (seed XOR @V@) rotl 3",
        "UDS 27 03 algorithm constant for the BCM: @V@ (do not commit to the tool repo)",
        "seedkey.dll replacement: SECRET_MASK = @V@",
    )
    S(
        "uds_aes_seedkey",
        lambda: hx(32, up=True),
        "gateway ECU 27 11 uses AES-128-ECB(seed) with key @V@",
        "security access AES key (level 0x11, extended session): @V@",
    )
    S(
        "oob_console_password",
        pw,
        "Opengear IM7200 in rack B4: ssh root@@IP@, password @V@, serial ports 1-32",
        "OOB: ssh -p 3012 admin:port12@@IP@ (pw @V@) gets you to the console of @H@",
        "console server login for the DC move: netadmin / @V@",
    )
    S(
        "ipmi_bmc_password",
        pw,
        "ipmitool -I lanplus -H @IP@ -U ADMIN -P '@V@' chassis power cycle",
        "iDRAC on the route reflectors: root / @V@",
    )
    S(
        "ansible_password_var",
        pw,
        "group_vars/ios.yml\nansible_network_os: cisco.ios.ios\nansible_user: netauto\nansible_password: @V@",
        'host_vars/@H@.yml\nansible_become: true\nansible_become_method: enable\nansible_become_password: "@V@"',
        "[junos:vars]\nansible_connection=netconf\nansible_ssh_pass=@V@",
    )
    S(
        "ansible_vault_password",
        pw,
        "echo '@V@' > ~/.vault_pass && ansible-playbook site.yml --vault-password-file ~/.vault_pass",
        "vault password for the netauto repo is @V@",
    )
    S(
        "netbox_api_token",
        lambda: hx(40),
        "curl -H 'Authorization: Token @V@' https://netbox.corp/api/dcim/devices/?site=ams1",
        "NETBOX_TOKEN=@V@\nNETBOX_URL=https://netbox.corp",
        "ansible inventory plugin:\nplugin: netbox.netbox.nb_inventory\napi_endpoint: https://netbox.corp\ntoken: @V@",
    )
    S(
        "netbox_secret_key",
        lambda: pick(ALNUM + "!@#$%^&*(-_=+)", 50),
        "configuration.py\nSECRET_KEY = '@V@'",
        "NetBox SECRET_KEY (generate_secret_key.py output) for the new instance: @V@",
    )
    S(
        "netmiko_device_password",
        pw,
        "dev = {'device_type': 'cisco_ios', 'host': '@IP@', 'username': 'netauto', 'password': '@V@', 'secret': 'see next'}",
        "ConnectHandler(device_type='arista_eos', host='@H@', username='admin', password='@V@')",
    )
    S(
        "netmiko_enable_secret",
        pw,
        "cisco = {'device_type': 'cisco_ios', 'host': '@IP@', 'username': 'u', 'password': 'p-in-env', 'secret': '@V@'}",
        "napalm optional_args: {'secret': '@V@', 'transport': 'ssh'}",
    )
    S(
        "rancid_cloginrc",
        pw,
        "~/.cloginrc\nadd user *.corp rancid\nadd password *.corp {@V@} {enable-in-next-line}",
        "add password @H@ {@V@}",
    )
    S(
        "oxidized_password",
        pw,
        "oxidized config:\nusername: oxidized\npassword: @V@\nmodel: junos",
        "oxidized router.db line: @H@:ios:oxidized:@V@",
    )
    S(
        "meraki_api_key",
        lambda: hx(40),
        "X-Cisco-Meraki-API-Key: @V@",
        "meraki dashboard key for the org export job: @V@",
        "export MERAKI_DASHBOARD_API_KEY=@V@",
    )
    S(
        "arista_eapi_password",
        pw,
        "~/.eapi.conf\n[connection:spine1]\nhost: @IP@\nusername: eapi\npassword: @V@\ntransport: https",
        "pyeapi.connect(host='@IP@', username='admin', password='@V@')",
    )
    S(
        "twilio_auth_token",
        lambda: hx(32),
        "Twilio SIP trunk termination creds, account auth token: @V@",
        "TWILIO_AUTH_TOKEN=@V@",
    )
    S(
        "smpp_bind_password",
        lambda: pick(ALNUM, 8),
        "SMPP bind to the SMSC: system_id=acme01, password=@V@, port 2775",
        "kannel.conf\ngroup = smsc\nsmsc = smpp\nsmsc-username = acme01\nsmsc-password = @V@",
    )
    S(
        "wifi_wpa_passphrase",
        pw,
        "hostapd.conf\nssid=CORP-IOT\nwpa=2\nwpa_passphrase=@V@",
        "warehouse scanners SSID psk: @V@",
    )
    S(
        "eap_8021x_password",
        pw,
        'wpa_supplicant.conf\nnetwork={\n  ssid="CORP"\n  key_mgmt=WPA-EAP\n  eap=PEAP\n  identity="svc-printer"\n  password="@V@"\n}',
        "dot1x credentials for the badge readers: svc-badge / @V@",
    )
    S(
        "pppoe_chap_secret",
        pw,
        '/etc/ppp/chap-secrets\n"branch7@isp.example" * "@V@" *',
        "interface Dialer1\n ppp chap hostname branch7@isp.example\n ppp chap password 0 @V@",
        "/interface pppoe-client add interface=ether1 user=b7@isp.example password=@V@",
    )
    S(
        "vyos_edgeos_password",
        pw,
        "set system login user vyos authentication plaintext-password '@V@'",
        "EdgeRouter: set system login user ubnt authentication plaintext-password @V@ ; commit ; save",
    )
    S(
        "aruba_hp_manager_password",
        pw,
        "password manager user-name admin plaintext @V@",
        "ArubaOS-CX: user admin group administrators password plaintext @V@",
    )
    S(
        "ldap_bind_password_device",
        pw,
        "aaa group server ldap AD\n ldap server DC1\n  bind authenticate root-dn CN=svc-net,OU=Svc,DC=corp password @V@",
        "FortiGate LDAP server object, bind password: @V@",
    )
    S(
        "routeros_api_password",
        pw,
        "api = librouteros.connect(host='@IP@', username='api', password='@V@')",
        "RouterOS API user for the dhcp-sync script: api-sync / @V@ (group read+api)",
    )

    # ------------------------------------------------------------ benign
    B(
        "mac_address",
        mac,
        "@H@ Gi1/0/12 learned @V@ on vlan 210 - the rogue AP",
        "arp -a | grep @V@  -> 10.20.1.44",
        "DHCP reservation: printer-3F @V@ -> 10.20.3.10",
    )
    B(
        "mac_address_cisco_dotted",
        lambda: ".".join(hx(4) for _ in range(3)),
        "show mac address-table address @V@\n  210    @V@    DYNAMIC     Gi1/0/7",
        "sticky mac on Gi0/3 is @V@",
    )
    B(
        "ipv6_address",
        lambda: f"2001:db8:{hx(4)}:{hx(2)}::{hx(3)}",
        "loopback0 on @H@: @V@/128",
        "neighbor @V@ remote-as 65010  ! v6 session to the customer",
    )
    B(
        "asn_and_peering",
        lambda: "AS%d" % r.randrange(64512, 65534),
        "new customer @V@, prefix-list CUST-IN permits 198.51.100.0/24 le 24",
        "private ASN @V@ for the DC fabric, spine range +1",
    )
    B(
        "device_serial",
        lambda: "FOC" + pick(string.digits, 4) + pick(string.ascii_uppercase + string.digits, 4),
        "RMA for @H@: chassis SN @V@, case 69@N@",
        'show inventory\nNAME: "Chassis", DESCR: "C9300-48P"\nPID: C9300-48P , VID: V02 , SN: @V@',
    )
    B(
        "fortigate_serial",
        lambda: "FGT60F" + pick(string.digits + "TK", 10),
        "FortiCare registration: @V@ (FortiGate-60F, branch 12)",
        "HA secondary serial @V@ shows out-of-sync",
    )
    B(
        "juniper_serial",
        lambda: (
            pick(string.ascii_uppercase, 2) + pick(string.digits, 4) + "AF" + pick(string.digits, 4)
        ),
        "MX204 chassis serial @V@, support contract ends 2027-03",
    )
    B(
        "imsi_synthetic",
        lambda: "00101" + pick(string.digits, 10),
        "attach fails for IMSI @V@ with cause #15 (no suitable cells in TA)",
        "test UE imsi @V@ provisioned in open5gs webui, slice sst=1",
    )
    B(
        "iccid_synthetic",
        lambda: "8988211" + pick(string.digits, 12),
        "card with ICCID @V@ is the one that shows 'SIM not provisioned'",
        "shipment of 50 test SIMs starts at ICCID @V@",
    )
    B(
        "imei_synthetic",
        lambda: "35" + pick(string.digits, 13),
        "the modem in the kiosk reports IMEI @V@ (AT+CGSN)",
        "blocklist request for IMEI @V@ - device stolen from the van",
    )
    B(
        "esim_eid",
        lambda: "89049032" + pick(string.digits, 24),
        "eUICC EID @V@ - SM-DP+ says profile already downloaded",
    )
    B(
        "interface_names",
        lambda: "TenGigabitEthernet1/1/%d" % r.randrange(1, 8),
        "uplink moved from Te1/1/1 to @V@ on @H@, description updated",
        "err-disabled: @V@ (bpduguard) - someone plugged a switch in the lab",
    )
    B(
        "vlan_ids",
        lambda: (
            "switchport trunk allowed vlan %d,%d-%d"
            % (r.randrange(2, 99), r.randrange(100, 200), r.randrange(201, 400))
        ),
        "po10 on @H@:\n @V@",
        "Trunk to the hypervisors: @V@ (storage vlan removed)",
    )
    B(
        "cert_fingerprint_sha256",
        lambda: ":".join(hx(2, up=True) for _ in range(32)),
        "ISE admin cert SHA256 fingerprint: @V@ (matches the CSR we sent)",
        "pinned the VPN gateway cert: @V@",
    )
    B(
        "ssh_host_key_fingerprint",
        lambda: "SHA256:" + pick(B64, 43),
        "ssh to @H@ warns: host key changed, new fingerprint @V@ - expected after the sup swap",
        "ED25519 key fingerprint is @V@.",
    )
    B(
        "wireguard_public_key",
        wgkey,
        "[Peer]\n# laptop-jdoe\nPublicKey = @V@\nAllowedIPs = 10.99.0.12/32",
        "give this pubkey to the hub admin: @V@",
        "wg show wg0\npeer: @V@\n  endpoint: 203.0.113.9:51820\n  latest handshake: 41 seconds ago",
    )
    B(
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + pick(B64, 43),
        "ip ssh pubkey-chain\n username netauto\n  key-string\n   @V@ netauto@jump\n  exit",
        "authorized_keys on the console server gets: @V@ ops@laptop",
    )
    B(
        "cisco_show_crypto_mypubkey",
        lambda: " ".join(hx(8, up=True) for _ in range(8)),
        "show crypto key mypubkey rsa\nKey name: @H@.corp\n Usage: General Purpose Key\n Key Data:\n  30820122 300D0609 2A864886 F70D0101 01050003 82010F00\n  @V@",
    )
    B(
        "redacted_removed",
        lambda: "<removed>",
        "tacacs server TAC1\n address ipv4 @IP@\n key 7 @V@",
        "from the TAC case attachment (show tech): snmp-server community @V@ RO",
        "neighbor 203.0.113.1 password 7 @V@  <- show tech scrubs these",
    )
    B(
        "masked_stars",
        lambda: "*" * r.randrange(6, 12),
        "show running-config | include radius\nradius-server key @V@",
        "FortiGate GUI shows the PSK as @V@ - the real one is in the vault",
        "show snmp user\nUser name: nms\nAuthentication Protocol: SHA\nauth passphrase: @V@",
    )
    B(
        "juniper_secret_data_omitted",
        lambda: "/* SECRET-DATA */",
        "authentication-key @V@;  (show configuration from a read-only class hides it)",
        "set snmp v3 usm local-engine user nms authentication-sha authentication-key @V@",
    )
    B(
        "snmp_default_community_disabled",
        lambda: r.choice(["public", "private"]),
        "hardening done on @H@:\nno snmp-server community @V@ RO\nno snmp-server community private RW",
        "audit finding closed: default community '@V@' removed from all Aristas (no snmp-server community @V@)",
        "/snmp community set [find name=@V@] disabled=yes  # mikrotik default off",
    )
    B(
        "ansible_vault_reference",
        lambda: "{{{{ vault_{}_password }}}}".format(r.choice(["ios", "junos", "eos", "fortios"])),
        'group_vars/network.yml\nansible_user: netauto\nansible_password: "@V@"',
        'ansible_become_password: "@V@"   # defined in vault.yml, encrypted',
    )
    B(
        "ansible_vault_ciphertext",
        lambda: "\n".join(hx(80) for _ in range(3)),
        "vault.yml (encrypted, safe to share):\n$ANSIBLE_VAULT;1.1;AES256\n@V@",
        "vault_radius_key: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n@V@",
    )
    B(
        "netbox_docs_example_token",
        lambda: "0123456789abcdef0123456789abcdef01234567",
        'NetBox REST example from their docs: curl -H "Authorization: Token @V@" ... (dummy token)',
        "token: @V@  # placeholder from the netbox-ansible README, replace with yours",
    )
    B(
        "netbox_object_ids",
        lambda: "dcim/devices/%d" % r.randrange(100, 9000),
        "the device record is @V@, tenant 'acme', role 'core-router'",
        "script failed on @V@ - primary_ip4 is null",
    )
    B(
        "uuid_object_id",
        lambda: "{}-{}-4{}-{}-{}".format(hx(8), hx(4), hx(3), r.choice("89ab") + hx(3), hx(12)),
        "Panorama rule uuid @V@ is the one shadowing the DNS rule",
        "Meraki webhook delivery id @V@ failed with 502",
    )
    B(
        "firmware_md5_show",
        lambda: hx(32),
        "verify /md5 bootflash:cat9k_iosxe.17.09.05.SPA.bin\n.....Done!\nverify /md5 (bootflash:cat9k_iosxe.17.09.05.SPA.bin) = @V@",
        "image checksum matches CCO: @V@",
        "MikroTik routeros-7.16.2-arm64.npk md5 @V@ - same as download page",
    )
    B(
        "config_backup_sha256",
        lambda: hx(64),
        "sha256sum @H@-running.cfg\n@V@  @H@-running.cfg",
        "oxidized commit for @H@: config hash @V@ unchanged since Friday",
    )
    B(
        "git_commit_sha",
        lambda: hx(40),
        "netauto repo: the ACL change is in commit @V@",
        "revert @V@ - it dropped the mgmt vrf from the template",
    )
    B(
        "bgp_communities",
        lambda: "%d:%d" % (r.randrange(64512, 65534), r.randrange(100, 999)),
        "tag customer routes with @V@ and blackhole with 65535:666",
        "route-map FROM-IX permit 10\n set community @V@ additive",
    )
    B(
        "route_distinguisher",
        lambda: "rd %s:%d" % (pubip(), r.randrange(1, 999)),
        "vrf definition CUST-ACME\n @V@\n route-target both 64512:201",
    )
    B(
        "bgp_router_id",
        lambda: f"bgp router-id {ip()}",
        "router bgp 64512\n @V@\n bgp log-neighbor-changes",
        "duplicate @V@ on two PEs, fixed",
    )
    B(
        "ipsec_spi_show",
        lambda: "0x" + hx(8, up=True),
        "show crypto ipsec sa\n   inbound esp sas:\n      spi: @V@(3041672214)\n        transform: esp-256-aes esp-sha256-hmac",
        "tunnel flaps, new outbound SPI each time (@V@ now)",
    )
    B(
        "ike_cookies",
        lambda: hx(16),
        "IKEv2 SA init: initiator SPI @V@ responder SPI 0000000000000000",
    )
    B(
        "snmp_engine_id",
        lambda: "800000090300" + hx(12, up=True),
        "snmp-server engineID local @V@",
        "v3 traps rejected: receiver knows engine id @V@, box regenerated it",
    )
    B(
        "snmpv3_user_no_keys",
        lambda: "auth sha priv aes 128",
        "snmp-server group NMS v3 priv read NMS-VIEW\n! users created with @V@, passphrases in vault item 'snmpv3-nms'",
    )
    B(
        "key_chain_ids_only",
        lambda: "key chain OSPF-KC",
        "@V@\n key 1\n  key-string (rotated, see vault)\n key 2\n  accept-lifetime 00:00:00 Jan 1 2027 infinite",
    )
    B(
        "sip_call_id_tags",
        lambda: pick(ALNUM, 32),
        "INVITE sip:2045@pbx SIP/2.0\nVia: SIP/2.0/UDP 10.1.2.3:5060;branch=z9hG4bK"
        + "776asdhds\nCall-ID: @V@@10.1.2.3\nFrom: <sip:6001@pbx>;tag=1928301774",
        "one-way audio, Call-ID @V@ in sngrep - RTP goes to the NATed address",
    )
    B(
        "sip_digest_nonce_challenge",
        lambda: hx(32),
        'SIP/2.0 401 Unauthorized\nWWW-Authenticate: Digest realm="asterisk", nonce="@V@", algorithm=MD5',
    )
    B(
        "sip_uri_no_password",
        lambda: "sip:%d@sip.voip-provider.example" % r.randrange(10000, 99999),
        "outbound caller id fixed; trunk identity is @V@ (creds unchanged)",
        "contact=@V@ ; registered, expires 3600",
    )
    B(
        "asterisk_secret_placeholder",
        lambda: "secret=CHANGE_ME",
        "template for new phones in sip.conf:\n[phone-template](!)\ntype=friend\n@V@\ncontext=internal",
        "pjsip template shipped with the repo has password=CHANGE_ME and @V@ - provisioning overwrites both",
    )
    B(
        "voip_provisioning_filename",
        lambda: hx(12) + ".cfg",
        "tftp shows the Polycom asking for @V@ - MAC-based file missing",
    )
    B(
        "twilio_account_sid",
        lambda: "AC" + hx(32),
        "Twilio account SID @V@ (the auth token lives in the vault, not here)",
        "elastic SIP trunk belongs to @V@",
    )
    B(
        "meraki_network_id",
        lambda: "L_" + pick(string.digits, 18),
        "meraki network id for the Paris office: @V@",
    )
    B(
        "milenage_test_vectors_3gpp",
        lambda: "465b5ce8b199b49faa5f0a2ee238a6bc",
        "3GPP TS 35.208 test set 1: K = @V@, OP = cdc202d5123e20f62b6d676ac72cb318 - used to unit test our milenage impl",
        "sanity check of f1 with the published test K @V@ passes",
    )
    B(
        "auth_vector_rand_autn",
        lambda: hx(32, up=True),
        "S6a AIA for the failing UE: RAND @V@ (sent over the air anyway)",
        "AUTN in the NAS Authentication Request: @V@ - MAC failure, SQN resync follows",
    )
    B(
        "uds_seed_from_ecu",
        lambda: " ".join(hx(2, up=True) for _ in range(4)),
        "trace: 27 01 -> 67 01 @V@ (seed changes every request)",
        "UDS session log: requestSeed level 0x03, ECU answered seed @V@",
    )
    B(
        "uds_did_and_can_ids",
        lambda: f"0x7{hx(2, up=True)}",
        "tester physical request id @V@, response id +8; DID F190 read returns the VIN",
    )
    B(
        "vin_synthetic",
        lambda: "WVW" + pick("ABCDEFGHJKLMNPRSTUVWXYZ0123456789", 14),
        "bench ECU is coded for VIN @V@ (test vehicle)",
    )
    B(
        "cell_identifiers",
        lambda: "ECI %d" % r.randrange(10**6, 10**8),
        "PLMN 001-01, TAC 7, @V@, PCI 312 - the sector that drops at handover",
    )
    B(
        "openvpn_auth_file_reference",
        lambda: "auth-user-pass /etc/openvpn/client/creds.txt",
        "client.conf\nremote vpn.corp 1194 udp\n@V@\nauth-nocache",
    )
    B(
        "openvpn_ca_certificate",
        lambda: "MIIC" + pick(B64, 60),
        "client.ovpn\n<ca>\n-----BEGIN CERTIFICATE-----\n@V@\n...\n-----END CERTIFICATE-----\n</ca>",
    )
    B(
        "dh_params",
        lambda: "MIIBCAKCAQEA" + pick(B64, 52),
        "dh2048.pem (public parameters):\n-----BEGIN DH PARAMETERS-----\n@V@\n-----END DH PARAMETERS-----",
    )
    B(
        "secret_vault_pointer",
        lambda: "op://network/radius-prod/secret",
        "RADIUS shared secret for the new WLC: pull from @V@, do not paste it in tickets",
        "IPsec PSK for branch 9 is stored at @V@ (rotated 2026-11-30)",
    )
    B(
        "psk_policy_talk",
        lambda: "",
        "Policy: IPsec pre-shared keys at least 32 random chars, rotated quarterly, never reused across peers.",
        "Decided to move the BGP sessions from MD5 passwords to TCP-AO; keys will be generated per session.",
        "TACACS key mismatch symptom: 'TACACS+ server returned invalid packet' on the switch, fix is to re-enter the key on both ends.",
    )
    B(
        "cisco_password_encryption_talk",
        lambda: "service password-encryption",
        "@V@ only gives type 7, which is reversible - switch to 'password encryption aes' with a master key.",
        "reminder: @V@ is on everywhere, but type 7 still decodes, so show-tech files still get scrubbed",
    )
    B(
        "crypto_key_generate_cmd",
        lambda: "crypto key generate rsa modulus 2048",
        "enable ssh on the new switch: ip domain-name corp.local, @V@, ip ssh version 2",
    )
    B(
        "wg_genkey_command",
        lambda: "wg genkey | tee privatekey | wg pubkey > publickey",
        "keys for the new peer: @V@ on the peer itself, only send publickey",
    )
    B(
        "docker_image_digest",
        lambda: "sha256:" + hx(64),
        "containerlab ceos image pinned to @V@",
    )
    B(
        "prefix_list",
        lambda: "ip prefix-list CUST-ACME seq 5 permit 198.51.100.0/24",
        "@V@\nip prefix-list CUST-ACME seq 10 deny 0.0.0.0/0 le 32",
    )
    B(
        "lldp_chassis_id",
        mac,
        "show lldp neighbors detail\nChassis id: @V@\nPort id: et-0/0/3\nSystem Name: @H@",
    )
    B(
        "ntp_trusted_key_id",
        lambda: "ntp trusted-key 1",
        "@V@\nntp server 10.0.0.1 key 1 prefer  ! key material stays in the crypto team's vault",
    )
    B(
        "revoked_api_key_stated",
        lambda: "LUFRPT" + pick(B64, 20) + "...",
        "old PAN-OS key (truncated, revoked 2026-10-02 by regenerating the admin's key): @V@",
    )
    B(
        "license_udi",
        lambda: "PID:C9300-48P SN:FOC" + pick(string.digits, 4) + pick(string.ascii_uppercase, 4),
        "smart licensing shows UDI @V@ out of compliance",
    )
    B(
        "radius_accounting_session_id",
        lambda: hx(16, up=True),
        'Acct-Session-Id = "@V@" for the VPN user that got kicked',
        "radius debug: Acct-Unique-Session-Id @V@, Framed-IP 10.8.0.12",
    )
    B(
        "esim_activation_code_doc_example",
        lambda: "LPA:1$smdp.example.com$EXAMPLE-MATCHING-ID",
        "format of an eSIM activation code (from the GSMA spec example): @V@",
    )
    B(
        "console_port_mapping",
        lambda: "port %d" % r.randrange(1, 48),
        "OOB map: @H@ console on Opengear @V@, baud 9600; login via the usual SSO",
    )
    B(
        "password_prompt_transcript",
        lambda: "Password:",
        "@H@>enable\n@V@\n% Access denied\n(wrong TACACS group, fixed in ISE)",
    )
    B(
        "snmp_oid",
        lambda: "1.3.6.1.4.1.9.9.%d.1.1.1.%d" % (r.randrange(10, 800), r.randrange(1, 30)),
        "poll @V@ for the PSU state on the ASR",
    )
    B(
        "hsrp_group_vip",
        lambda: "standby %d ip %s" % (r.randrange(1, 250), ip()),
        "interface Vlan210\n @V@\n standby 10 priority 110\n standby 10 preempt",
    )
    B(
        "jinja_template_secret_var",
        lambda: "{{ bgp_md5 }}",
        "templates/bgp.j2:\n neighbor {{ peer.ip }} password @V@",
        "ospf template: ip ospf message-digest-key 1 md5 @V@  (value from vault)",
    )
    B(
        "env_var_reference",
        lambda: "${NETBOX_TOKEN}",
        "nb_inventory: token: @V@ (exported by the CI job from the secret store)",
        'curl -H "Authorization: Token @V@" https://netbox.corp/api/status/',
    )
    B(
        "wifi_bssid",
        mac,
        "roaming issue: client sticks to BSSID @V@ on channel 36",
    )
    B(
        "ipv4_nat_translation",
        lambda: "%s:%d" % (pubip(), r.randrange(1024, 65535)),
        "show ip nat translations: SIP from the phone mapped to @V@",
    )
    B(
        "hex_rack_asset_tag",
        lambda: "AT-" + hx(8, up=True),
        "asset tag @V@ on the spare MX, shelf 2",
    )
    B(
        "pjsip_identify_match",
        lambda: "match=" + pubip(),
        "[carrier-identify]\ntype=identify\nendpoint=carrier\n@V@",
    )

    # ------------------------------------------------------------ more benign
    B(
        "mac_address",
        lambda: mac("-").upper(),
        "Windows ipconfig /all on the kiosk: Physical Address. . . : @V@",
        "NAC quarantined @V@ (no 802.1X supplicant, MAB fallback)",
    )
    B(
        "ipv6_address",
        lambda: f"fe80::{hx(4)}:{hx(4)}:{hx(4)}:{hx(4)}",
        "OSPFv3 neighbor on Te0/0/0 is @V@, stuck in EXSTART (MTU)",
    )
    B(
        "asn_and_peering",
        lambda: "remote-as %d" % r.randrange(1000, 60000),
        "peering with the CDN: neighbor 203.0.113.77 @V@, max-prefix 5000",
    )
    B(
        "device_serial",
        lambda: "JAE" + pick(string.digits, 5) + pick(string.ascii_uppercase + string.digits, 3),
        "N9K leaf serial @V@ - reseated the fan tray, alarm cleared",
    )
    B(
        "imsi_synthetic",
        lambda: "999700" + pick(string.digits, 9),
        "lab core: add subscriber imsi=@V@ apn=internet",
    )
    B(
        "iccid_synthetic",
        lambda: "89" + pick(string.digits, 17) + "F",
        "EF.ICCID read back as @V@ (nibble-swapped in the raw dump)",
    )
    B(
        "imei_synthetic",
        lambda: "86" + pick(string.digits, 13),
        "the LTE router on the rooftop: IMEI @V@, firmware 11.22",
    )
    B(
        "interface_names",
        lambda: "xe-0/1/%d.%d" % (r.randrange(0, 8), r.randrange(100, 999)),
        "customer unit @V@ in routing-instance ACME, policer 100m",
        "monitor interface @V@ shows input errors climbing",
    )
    B(
        "vlan_ids",
        lambda: "vlan %d" % r.randrange(2, 4094),
        "@V@\n name VOICE-3F\n! voice vlan for the Yealinks",
        "the CCTV recorders sit in @V@, no routing out",
    )
    B(
        "cert_fingerprint_sha256",
        lambda: hx(40, up=True),
        "crypto pki trustpoint ISE-CA\n fingerprint @V@",
    )
    B(
        "wireguard_public_key",
        wgkey,
        "hub peer list in netbox custom field wg_pubkey = @V@",
        "wg pubkey < privatekey printed @V@ - shared in the ticket, that's fine",
    )
    B(
        "ssh_public_key",
        lambda: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + pick(B64, 60),
        'set system login user ansible authentication ssh-rsa "@V@ ansible@awx"',
    )
    B(
        "redacted_removed",
        lambda: r.choice(["<redacted>", "[REDACTED]", "xxxxxxxx"]),
        'ipsec.secrets on vpn-gw2 (sanitised for the vendor): %any : PSK "@V@"',
        "[6001]\ntype=friend\nsecret=@V@\ncontext=internal   <- scrubbed before posting to the forum",
        "PresharedKey = @V@   (real value only on the two endpoints)",
    )
    B(
        "masked_stars",
        lambda: "*" * 8,
        "Opengear web UI: port 7 login password @V@ (hidden), set by the DC team",
        "ansible -v output: ansible_password: @V@",
    )
    B(
        "snmp_default_community_disabled",
        lambda: "public",
        "set snmp community @V@ authorization read-only   -> deleted in the commit 'remove default community', replaced by v3 only",
    )
    B(
        "ansible_vault_reference",
        lambda: "{{ lookup('hashi_vault', 'secret=net/data/tacacs:key') }}",
        'tacacs_key: "@V@"',
        "radius_secret: @V@",
    )
    B(
        "netbox_object_ids",
        lambda: "ipam/prefixes/%d" % r.randrange(100, 9000),
        "reserve the /29 at @V@ for the new PE-CE link",
    )
    B(
        "uuid_object_id",
        lambda: "{}-{}-4{}-{}-{}".format(hx(8), hx(4), hx(3), r.choice("89ab") + hx(3), hx(12)),
        "FortiManager ADOM object uuid @V@ failed install",
        "ticket correlation id @V@ (from the NOC portal)",
    )
    B(
        "firmware_md5_show",
        lambda: hx(32),
        'show version | include image\nSystem image file is "flash:c2960x.bin"\nmd5 @V@ (checked against the release notes)',
    )
    B(
        "config_backup_sha256",
        lambda: hx(64),
        "golden config checksum for the access template: @V@",
    )
    B(
        "git_commit_sha",
        lambda: hx(7),
        "oxidized git log: @V@ update @H@ (description change only)",
    )
    B(
        "bgp_communities",
        lambda: "%d:%d:%d" % (r.randrange(64512, 65534), r.randrange(1, 9), r.randrange(100, 999)),
        "large community @V@ = do not announce to AMS-IX",
    )
    B(
        "ipsec_spi_show",
        lambda: hx(8),
        f"strongswan: CHILD_SA net-net{{3}} established with SPIs c{hx(7)}_i @V@_o",
    )
    B(
        "snmp_engine_id",
        lambda: "80000a4c01" + hx(8),
        "Juniper local engine-id shows @V@ after setting engine-id use-mac-address",
    )
    B(
        "sip_call_id_tags",
        lambda: hx(8) + "-" + hx(4),
        "From tag @V@ belongs to the leg that sent BYE",
    )
    B(
        "sip_digest_nonce_challenge",
        lambda: hx(8) + "/" + hx(24),
        'Proxy-Authenticate: Digest realm="sip.voip-provider.example", nonce="@V@", qop="auth"',
    )
    B(
        "asterisk_secret_placeholder",
        lambda: "password=<from provisioning db>",
        "pjsip.conf.sample in our repo:\n[TEMPLATE-auth](!)\ntype=auth\nauth_type=userpass\n@V@",
    )
    B(
        "twilio_account_sid",
        lambda: "SK" + hx(32),
        "API key SID @V@ (the sid, the matching secret is only in the vault)",
    )
    B(
        "auth_vector_rand_autn",
        lambda: hx(16, up=True),
        "XRES length 8, RES from the UE: @V@ - mismatch, so probably wrong card batch",
    )
    B(
        "uds_seed_from_ecu",
        lambda: " ".join(hx(2, up=True) for _ in range(16)),
        "27 11 response (AES level), the 16-byte seed: @V@",
    )
    B(
        "secret_vault_pointer",
        lambda: "vault kv get secret/network/snmpv3/nms",
        "SNMPv3 auth and priv passphrases: run `@V@`, don't copy them to the wiki",
        "OOB console passwords moved; fetch with `@V@` (needs the netops policy)",
    )
    B(
        "secret_vault_pointer",
        lambda: "CyberArk safe NET-OOB, object opengear-root",
        "console server root password is in @V@",
    )
    B(
        "psk_policy_talk",
        lambda: "",
        "Asterisk hardening: alwaysauthreject=yes, fail2ban on the security log, long random SIP secrets per extension.",
        "Ki and OPc never leave the HSS; the card vendor sends them encrypted with our transport key, decrypted only in the HSM.",
        "UDS security access: the seed/key constants are OEM-confidential, keep them in the HSM-backed signer, not in the tester config.",
    )
    B(
        "password_prompt_transcript",
        lambda: "Password:",
        "ssh admin@@IP@\n@V@\nPermission denied, please try again.\n(account locked out by the console server after 3 tries)",
    )
    B(
        "jinja_template_secret_var",
        lambda: "{{ wg_private_key }}",
        "roles/wireguard/templates/wg0.conf.j2\n[Interface]\nPrivateKey = @V@\nListenPort = 51820",
        "snmp-server user {{ snmp_user }} NMS v3 auth sha {{ snmp_auth }} priv aes 128 @V@",
    )
    B(
        "env_var_reference",
        lambda: "$PANOS_API_KEY",
        'curl -k "https://fw1/api/?type=op&cmd=<show><jobs><all/></jobs></show>&key=@V@"',
    )
    B(
        "placeholder_example_value",
        lambda: "YOUR_PSK_HERE",
        "vendor's example config: crypto isakmp key @V@ address 0.0.0.0",
        "README snippet for the branch kit: wpa_passphrase=@V@",
    )
    B(
        "placeholder_example_value",
        lambda: "<client-private-key>",
        "client template: [Interface]\nPrivateKey = @V@\nAddress = 10.99.0.X/32",
    )
    B(
        "password_change_log",
        lambda: "",
        "%SYS-5-CONFIG_I: Configured from console by netops on vty0 (10.0.0.5) - that was me rotating the enable secret, done on all 40 switches",
        "Rotated RADIUS shared secrets for the lab WLCs today; new value only in the PAM, old one revoked on the NPS side.",
    )
    B(
        "sim_card_public_fields",
        lambda: f"MSISDN +4477009{pick(string.digits, 5)}",
        "test card 7: @V@, SPN 'LabNet', ACC 0004",
    )
    B(
        "esim_eid",
        lambda: "89033023" + pick(string.digits, 24),
        "iPad eSIM EID @V@ needs to be whitelisted at the operator",
    )
    B(
        "tcp_ao_key_id",
        lambda: "key-id %d" % r.randrange(0, 255),
        "TCP-AO on the new peering: keychain AO-IX @V@ send-id 1 recv-id 1, key material via vault",
    )
    B(
        "hash_show_user",
        lambda: "sha512",
        "show running-config | section username\nusername netops privilege 15 secret 9 (shown only as type 9, we use @V@-crypt on Linux too)",
    )
    B(
        "rsa_key_size_talk",
        lambda: "",
        "SSH fails from the old jump host: the switch only offers ecdsa now, regenerated with modulus 4096 last week.",
    )
    B(
        "dot1x_eap_identity",
        lambda: f"host/WS-{pick(string.digits, 5)}.corp.local",
        "ISE log: authentication succeeded for @V@ (machine auth, EAP-TLS)",
    )
    B(
        "certificate_serial",
        lambda: ":".join(hx(2) for _ in range(16)),
        "VPN gateway cert serial @V@ expires 2027-01-14, renew via SCEP",
    )
    B(
        "pcap_filter",
        lambda: "udp port 1812 or udp port 1813",
        "tcpdump -ni eth0 '@V@' -w radius.pcap (shared secret NOT in the capture, only Message-Authenticator)",
    )
    B(
        "radius_message_authenticator",
        lambda: "0x" + hx(32),
        "wireshark: Message-Authenticator @V@ - validation fails, so the secret differs",
    )
    B(
        "ospf_area_and_cost",
        lambda: "ip ospf cost %d" % r.randrange(1, 65535),
        "interface Te0/1\n ip ospf network point-to-point\n @V@",
    )
    B(
        "phone_number_did",
        lambda: f"+44 20 7946 0{pick(string.digits, 3)}",
        "new DID range starts at @V@, ported Tuesday",
    )
    B(
        "mpls_labels",
        lambda: "label %d" % r.randrange(16, 1048575),
        "LSP to PE7 pops @V@ at the PHP, traceroute shows it",
    )
    B(
        "bfd_and_timers",
        lambda: "bfd interval 300 min_rx 300 multiplier 3",
        "BGP to the firewall flaps; set @V@ on both sides",
    )
    B(
        "mikrotik_identity_export",
        lambda: "/system identity set name=" + host(),
        "export hide-sensitive (no passwords in it):\n@V@\n/ip address add address=10.9.9.1/24 interface=bridge",
    )
    B(
        "pan_hostid",
        lambda: "0" + pick(string.digits, 14),
        "PA-440 serial @V@ registered in the CSP, licence auth codes applied",
    )

    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(x, ensure_ascii=False) for x in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
