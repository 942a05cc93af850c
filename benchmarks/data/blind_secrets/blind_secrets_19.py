# ruff: noqa: E501
"""Blind secrets corpus 19: engineers outside the web mainstream.

Memories that a coding agent might be asked to store while working with embedded/IoT and
industrial systems (PLC, SCADA, MQTT, LoRaWAN, device provisioning), game development (Steam,
Epic Online Services, console dev kits, PlayFab, Unity/Unreal services), fintech and crypto
exchanges (exchange API keys and secrets, FIX sessions, payment processors), telecom (SIP
trunks, SMS gateways, VoIP) and blockchain node operators (RPC endpoints, validator keys,
keystores), plus hard look-alikes from the same fields (device EUIs, serials, public
addresses, transaction hashes, app ids, public keys, placeholders, vault references).

Written blind on 2026-12-06: the author did not read the detector, its tests or any earlier corpus.

Every random value is generated from random.Random(SEED) inside corpus(); no real credential
appears. The only fixed values are published, well-known non-secrets (the Zigbee default trust
center link key, the Matter SDK test passcode, the BIP39 reference test vectors, the Hardhat
default account key, AWS and Stripe documentation sample keys, a textbook IBAN, a Stripe test card
number, the ERC-20 Transfer topic and Solana program ids).

Run:
    python benchmarks/data/blind_secrets/blind_secrets_19.py out.jsonl   # or stdout without a path

Each row: {"label": "secret"|"benign", "kind": str, "text": str, "value": str}; for a secret row
`value` is the exact secret substring of `text`, for a benign row the most secret-looking
substring (or "").

Secret kinds (83):
    mqtt_url_password, mqtt_client_password, wifi_psk_provisioning, iot_device_private_key,
    azure_iot_hub_shared_access_key, azure_dps_enrollment_key, azure_iot_sas_token,
    lorawan_app_key, lorawan_session_key, ttn_api_key, chirpstack_api_token, thread_network_key,
    zigbee_network_key, particle_access_token, balena_api_key, coap_dtls_psk,
    mender_tenant_token, plc_password, scada_admin_password, opcua_user_password,
    hmi_vnc_password, industrial_gateway_password, steam_web_api_key, steam_publisher_key,
    steam_gslt, steam_guard_shared_secret, steamcmd_login_password, steam_login_secure_cookie,
    eos_client_secret, playfab_secret_key, unity_service_account_secret, perforce_password,
    perforce_ticket, console_devkit_password, discord_bot_token, aws_secret_access_key,
    binance_api_secret, coinbase_cdp_private_key, kraken_private_key, okx_api_secret,
    exchange_api_passphrase, bybit_api_secret, fix_logon_password, stripe_live_secret_key,
    stripe_restricted_key, stripe_webhook_secret, paypal_client_secret, square_access_token,
    adyen_api_key, braintree_private_key, authorize_net_transaction_key, plaid_secret,
    exchange_totp_seed, twilio_auth_token, twilio_api_key_secret, sip_trunk_password,
    asterisk_ami_secret, freeswitch_esl_password, smpp_bind_password, vonage_api_secret,
    plivo_auth_token, telnyx_api_key, sim_ki, voip_provisioning_password, eth_private_key,
    bip39_mnemonic, keystore_password, engine_api_jwt_secret, alchemy_api_key,
    quicknode_endpoint_token, bitcoind_rpc_password, bitcoin_wif_private_key, bip32_xprv,
    solana_keypair, tendermint_validator_key, near_private_key, etherscan_api_key,
    validator_mtls_private_key, flashbots_auth_signer_key, rpc_basic_auth_url,
    infura_api_key_secret, steam_app_ticket_key, messagebird_access_key

Benign kinds (104):
    lorawan_dev_eui, lorawan_join_eui, lorawan_dev_addr, lorawan_gateway_eui,
    lorawan_phy_payload, device_serial_number, mac_address, imei, iccid, imsi, ble_service_uuid,
    thread_dataset_public_fields, zigbee_default_tc_link_key, matter_test_passcode,
    firmware_sha256, crc_checksum, modbus_frame_hex, plc_keyswitch_position,
    mosquitto_password_hash, hmi_bcrypt_hash, mqtt_env_reference, device_certificate_pem,
    public_key_pem, cert_fingerprint, steam_app_id, steam_id64, steam_depot_manifest,
    eos_deployment_ids, eos_game_client_id, playfab_title_id, unity_project_id, photon_app_id,
    unreal_asset_guid, game_input_keybinding, documented_example_credential,
    stripe_publishable_key, stripe_object_id, stripe_docs_test_key, stripe_test_card,
    paypal_client_id, square_application_id, braintree_tokenization_key, fix_session_ids,
    fix_execution_report, exchange_order_id, coinbase_api_key_name, iban_example,
    payment_merchant_id, twilio_account_sid, twilio_resource_sid, phone_number, sip_uri,
    sip_call_id, smpp_system_id, sip_digest_response, eth_address, eth_tx_hash,
    block_or_state_root, event_topic_hash, erc20_token_contract, btc_address, btc_txid,
    bip32_xpub, bls_validator_pubkey, withdrawal_credentials, enode_url, libp2p_peer_id,
    solana_pubkey, solana_tx_signature, tx_signature_rsv, ipfs_cid, public_rpc_endpoint,
    well_known_dev_key, bip39_test_vector, keccak_function_selector, ethereum_nonce_gas,
    env_placeholder, xxx_placeholder_key, zero_filled_key, vault_reference,
    cloud_secret_manager_ref, password_manager_ref, redacted_value, revoked_credential,
    secret_handling_policy, password_feature_talk, key_other_sense, token_other_sense,
    secret_other_sense, request_correlation_id, git_commit_sha, ssh_public_key,
    console_devkit_identifier, hex_blob_not_key, random_nonce_iv, totp_code, sip_carrier_ip_acl,
    rpc_url_placeholder, mqtt_topic_with_ids, azure_id_scope, eth_keystore_public_fields,
    solana_program_id, base64_config_blob, steam_build_id
"""

import base64
import json
import random
import sys

SEED = 519019

WORDS = [
    "abandon",
    "ability",
    "able",
    "about",
    "above",
    "absent",
    "absorb",
    "abstract",
    "absurd",
    "abuse",
    "access",
    "accident",
    "account",
    "accuse",
    "achieve",
    "acid",
    "acoustic",
    "acquire",
    "across",
    "act",
    "action",
    "actor",
    "actress",
    "actual",
    "adapt",
    "add",
    "addict",
    "address",
    "adjust",
    "admit",
    "adult",
    "advance",
    "advice",
    "aerobic",
    "affair",
    "afford",
    "afraid",
    "again",
    "age",
    "agent",
    "agree",
    "ahead",
    "aim",
    "air",
    "airport",
    "aisle",
    "alarm",
    "album",
    "alcohol",
    "alert",
    "alien",
    "all",
    "alley",
    "allow",
    "almost",
    "alone",
    "alpha",
    "already",
    "also",
    "alter",
    "always",
    "amateur",
    "amazing",
    "among",
    "amount",
    "amused",
    "analyst",
    "anchor",
    "ancient",
    "anger",
    "angle",
    "angry",
    "animal",
    "ankle",
    "announce",
    "annual",
    "another",
    "answer",
    "antenna",
    "antique",
    "anxiety",
    "any",
    "apart",
    "apology",
    "appear",
    "apple",
    "approve",
    "april",
    "arch",
    "arctic",
    "area",
    "arena",
    "argue",
    "arm",
    "armed",
    "armor",
    "army",
    "around",
    "arrange",
    "arrest",
    "arrive",
    "arrow",
    "art",
    "artefact",
    "artist",
    "artwork",
    "ask",
    "aspect",
    "assault",
    "asset",
    "assist",
    "assume",
    "asthma",
    "athlete",
    "atom",
    "attack",
    "attend",
    "attitude",
    "attract",
    "auction",
    "audit",
    "august",
    "aunt",
    "author",
    "auto",
    "autumn",
    "average",
    "avocado",
    "avoid",
    "awake",
    "aware",
    "away",
    "awesome",
    "awful",
    "awkward",
    "axis",
    "baby",
    "bachelor",
    "bacon",
    "badge",
    "bag",
    "balance",
    "balcony",
    "ball",
    "bamboo",
    "banana",
    "banner",
    "bar",
    "barely",
    "bargain",
    "barrel",
    "base",
    "basic",
    "basket",
    "battle",
    "beach",
    "bean",
    "beauty",
    "because",
    "become",
    "beef",
    "before",
    "begin",
    "behave",
    "behind",
    "believe",
    "below",
    "belt",
    "bench",
    "benefit",
    "best",
    "betray",
    "better",
    "between",
    "beyond",
    "bicycle",
    "bid",
    "bike",
    "bind",
    "biology",
    "bird",
    "birth",
    "bitter",
    "black",
    "blade",
    "blame",
    "blanket",
    "blast",
    "bleak",
    "bless",
    "blind",
    "blood",
    "blossom",
    "blouse",
    "blue",
    "blur",
    "blush",
    "board",
    "boat",
    "body",
    "boil",
    "bomb",
    "bone",
    "bonus",
    "book",
    "boost",
    "border",
    "boring",
    "borrow",
    "boss",
    "bottom",
    "bounce",
    "box",
    "boy",
    "bracket",
    "brain",
    "brand",
    "brass",
    "brave",
    "bread",
    "breeze",
    "brick",
    "bridge",
    "brief",
    "bright",
    "bring",
    "brisk",
    "broccoli",
    "broken",
    "bronze",
    "broom",
    "brother",
    "brown",
    "brush",
    "bubble",
    "buddy",
    "budget",
    "buffalo",
    "build",
    "bulb",
    "bulk",
    "bullet",
    "bundle",
    "bunker",
    "burden",
    "burger",
    "burst",
    "bus",
    "business",
    "busy",
    "butter",
    "buyer",
    "buzz",
    "cabbage",
    "cabin",
    "cable",
    "cactus",
]

PWWORDS = [
    "turbine",
    "ridge",
    "harbor",
    "falcon",
    "copper",
    "quarry",
    "lantern",
    "meadow",
    "cobalt",
    "granite",
    "willow",
    "ember",
    "glacier",
    "thistle",
    "orbit",
    "pylon",
    "relay",
    "ferrite",
    "kestrel",
    "basalt",
    "cinder",
    "marlin",
    "tundra",
    "juniper",
]


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows: list[dict] = []

    def pick(alpha: str, n: int) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    hx = "0123456789abcdef"
    HX = "0123456789ABCDEF"
    an = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    up = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    lo = "abcdefghijklmnopqrstuvwxyz0123456789"
    b58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    b32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

    def h(n: int) -> str:
        return pick(hx, n)

    def H(n: int) -> str:
        return pick(HX, n)

    def rb(n: int) -> bytes:
        return bytes(r.randrange(256) for _ in range(n))

    def b64(n: int) -> str:
        return base64.b64encode(rb(n)).decode()

    def b64u(n: int) -> str:
        return base64.urlsafe_b64encode(rb(n)).decode().rstrip("=")

    def uuid() -> str:
        return f"{h(8)}-{h(4)}-4{h(3)}-{r.choice('89ab')}{h(3)}-{h(12)}"

    def pw() -> str:
        style = r.randrange(4)
        w1, w2 = r.sample(PWWORDS, 2)
        if style == 0:
            return f"{w1.capitalize()}{r.choice('!#%*-_.+')}{r.randrange(100, 9999)}{w2}"
        if style == 1:
            return pick(an + "!#%*-_+=", r.randrange(14, 22))
        if style == 2:
            return f"{w1[:3]}{r.randrange(10, 99)}{w2.upper()[:4]}{r.choice('!#%*')}{pick(an, 4)}"
        return pick(an, r.randrange(16, 26))

    def jwt(payload: dict) -> str:
        head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
        body = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")
        return f"{head}.{body}.{b64u(32)}"

    def pem(label: str, der: bytes) -> str:
        body = base64.b64encode(der).decode()
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])

    def ec_key() -> str:
        der = (
            bytes.fromhex("30770201010420")
            + rb(32)
            + bytes.fromhex("a00a06082a8648ce3d030107a144034200")
            + b"\x04"
            + rb(64)
        )
        return pem("EC PRIVATE KEY", der)

    def ed_key() -> str:
        return pem("PRIVATE KEY", bytes.fromhex("302e020100300506032b657004220420") + rb(32))

    def ec_pub() -> str:
        der = bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d03010703420004") + rb(64)
        return pem("PUBLIC KEY", der)

    def luhn(digits: str) -> str:
        total = 0
        for i, ch in enumerate(reversed(digits)):
            d = int(ch)
            if i % 2 == 0:
                d *= 2
                if d > 9:
                    d -= 9
            total += d
        return digits + str((10 - total % 10) % 10)

    hosts = [
        "broker.plant-east.local",
        "mqtt.fieldops.internal",
        "iot-gw-03.kilnworks.net",
        "scada01.waterco.lan",
        "edge-hub.silo7.corp",
        "telemetry.orchardlabs.io",
    ]
    users = ["ingest", "svc_telemetry", "edgebot", "plc_ro", "hmi_ops", "buildbot", "ops", "relay"]
    sites = ["Tilburg line 2", "the Oulu pilot", "Dock 4", "Pump station B", "the Reno warehouse"]
    ssids = ["FACTORY-IOT", "PlantFloor_2G", "kiln-sensors", "OT-Provision", "WH-Scanner"]
    carriers = ["voxtrunk.net", "sip.callcarrier.io", "trunk.telvane.eu", "sbc.northline-tel.com"]

    def C() -> dict:
        return {
            "host": r.choice(hosts),
            "ip": f"10.{r.randrange(0, 255)}.{r.randrange(0, 255)}.{r.randrange(2, 250)}",
            "user": r.choice(users),
            "site": r.choice(sites),
            "ssid": r.choice(ssids),
            "carrier": r.choice(carriers),
            "n": r.randrange(2, 60),
            "dev": f"{r.choice(['sensor', 'meter', 'tracker', 'valve', 'gw'])}-{r.randrange(100, 999)}",
            "deveui": H(16),
            "joineui": "70B3D57ED" + H(7),
            "addr": "0x" + h(40),
            "uuid": uuid(),
            "acsid": "AC" + h(32),
            "steamid": "7656119" + str(r.randrange(8000000000, 9999999999)),
            "appid": str(r.randrange(400000, 2900000)),
            "title": H(5),
            "day": f"2026-{r.randrange(1, 12):02d}-{r.randrange(1, 28):02d}",
            "phone": f"+1{r.randrange(201, 989)}{r.randrange(2000000, 9999999)}",
            "hub": r.choice(["contoso-iot-prod", "fleet-hub-eu", "meters-weu-01", "agri-hub"]),
            "ts": str(r.randrange(1797000000, 1830000000)),
        }

    def add(label: str, kind: str, gen, templates: list[str]) -> None:
        for t in templates:
            v = gen()
            text = t.format(v=v, **C())
            assert v in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    def P(label: str, kind: str, pairs: list) -> None:
        for val, t in pairs:
            v = val() if callable(val) else val
            text = t.format(v=v, **C())
            assert v in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    def S(kind, gen, templates):
        add("secret", kind, gen, templates)

    def B(kind, gen, templates):
        add("benign", kind, gen, templates)

    def urlpw() -> str:
        return pick(an + "!*-_.~", r.randrange(14, 24))

    # ---------------- secret: embedded / IoT / industrial ----------------
    S(
        "mqtt_url_password",
        urlpw,
        [
            "mosquitto bridge for {site}: address mqtts://{user}:{v}@{host}:8883 (works once cafile points at the new CA)",
            "MQTT_URL=mqtt://{user}:{v}@{ip}:1883/\n# used by the telegraf sidecar on {dev}",
            "node-red broker node on {host} -> creds are {user} / {v}, TLS off on the OT VLAN",
        ],
    )
    S(
        "mqtt_client_password",
        pw,
        [
            '[[inputs.mqtt_consumer]]\n  servers = ["tcp://{ip}:1883"]\n  topics = ["plant/+/telemetry"]\n  username = "{user}"\n  password = "{v}"',
            'paho test script that finally connected:\nclient.username_pw_set("{user}", "{v}")\nclient.connect("{host}", 8883)',
            "esphome secrets for the {dev} boards:\nmqtt_user: {user}\nmqtt_password: {v}",
        ],
    )
    S(
        "wifi_psk_provisioning",
        pw,
        [
            "Provisioning jig at station {n} writes SSID `{ssid}` and WPA2 key `{v}` into NVS on every ESP32.",
            'wpa_supplicant.conf on the gateways:\nnetwork={{\n  ssid="{ssid}"\n  psk="{v}"\n}}',
            "Reminder for {site}: sensors join {ssid}, passphrase {v}. Don't give it to contractors.",
        ],
    )
    S(
        "iot_device_private_key",
        ec_key,
        [
            "AWS IoT thing {dev}: private key from the provisioning run, keep with the cert\n{v}",
            "device key for {dev} (the cert is in S3, this is the matching key)\n{v}",
        ],
    )
    S(
        "azure_iot_hub_shared_access_key",
        lambda: b64(32),
        [
            "service connection string for {hub}:\nHostName={hub}.azure-devices.net;SharedAccessKeyName=iothubowner;SharedAccessKey={v}",
            'IOTHUB_DEVICE_CONNECTION_STRING="HostName={hub}.azure-devices.net;DeviceId={dev};SharedAccessKey={v}"',
            "The registryReadWrite policy key on {hub} is {v} - the func app uses it.",
        ],
    )
    S(
        "azure_dps_enrollment_key",
        lambda: b64(64),
        [
            "DPS enrollment group `{site}` primary symmetric key: {v}\nderive per-device keys with HMAC-SHA256 over the registration id",
            "idScope 0ne00{title}A, group key {v} (secondary was rotated on {day})",
        ],
    )
    S(
        "azure_iot_sas_token",
        lambda: (
            f"SharedAccessSignature sr={r.choice(['fleet-hub-eu', 'agri-hub'])}.azure-devices.net%2Fdevices%2Fgw-{r.randrange(10, 99)}&sig={b64(32).replace('+', '%2B').replace('/', '%2F').replace('=', '%3D')}&se={r.randrange(1797000000, 1830000000)}"
        ),
        [
            "MQTT password for the device (valid a year):\n{v}",
            "curl -H 'Authorization: {v}' https://{hub}.azure-devices.net/devices/{dev}/messages/events?api-version=2021-04-12",
        ],
    )
    S(
        "lorawan_app_key",
        lambda: H(32),
        [
            "OTAA for {dev}: DevEUI {deveui}, JoinEUI {joineui}, AppKey {v}",
            "ttn-lw-cli end-devices create soil-app {dev} --dev-eui {deveui} --join-eui {joineui} --root-keys.app-key.key {v} --lorawan-version 1.0.3",
            "chirpstack device keys ({dev}) nwk_key = {v}  (1.0.x so nwk_key doubles as AppKey)",
        ],
    )
    S(
        "lorawan_session_key",
        lambda: H(32),
        [
            "ABP fallback for the basement meters: DevAddr 260B1{n:02d}7 NwkSKey {v}",
            "AppSKey for {dev} under ABP is {v}; frame counters reset on reboot so keep relax-fcnt on",
        ],
    )
    S(
        "ttn_api_key",
        lambda: f"NNSXS.{pick(b32, 39)}.{pick(b32, 52)}",
        [
            "TTN console API key for the webhook integration (rights: read uplinks, write downlinks): {v}",
            "TTN_API_KEY={v}\nTTN_APP_ID=soil-moisture-{n}",
            "Basic Station tc.key for the roof gateway: Authorization: Bearer {v}",
            'downlink scheduling: curl -H "Authorization: Bearer {v}" https://eu1.cloud.thethings.network/api/v3/as/applications/orchard/devices/{dev}/down/push',
        ],
    )
    S(
        "chirpstack_api_token",
        lambda: jwt({"aud": "chirpstack", "iss": "chirpstack", "sub": uuid(), "typ": "key"}),
        [
            "chirpstack global API token for the provisioning script:\n{v}",
            "grpc metadata for chirpstack: authorization: Bearer {v}",
        ],
    )
    S(
        "thread_network_key",
        lambda: h(32),
        [
            "OTBR active dataset for {site}: channel 15, panid 0x{n:02d}3F, networkkey {v}",
            "ot-ctl dataset networkkey {v}\not-ctl dataset commit active",
        ],
    )
    S(
        "zigbee_network_key",
        lambda: "[" + ", ".join(str(r.randrange(256)) for _ in range(16)) + "]",
        [
            "zigbee2mqtt configuration.yaml advanced section:\n  pan_id: 6754\n  network_key: {v}",
            "Back up the z2m network key or every bulb needs re-pairing: network_key: {v}",
        ],
    )
    S(
        "particle_access_token",
        lambda: h(40),
        [
            "Particle token for fleet OTA (never expires): {v}",
            'curl https://api.particle.io/v1/devices -H "Authorization: Bearer {v}"',
        ],
    )
    S(
        "balena_api_key",
        lambda: pick(an, 32),
        [
            "BALENA_API_KEY={v}  # CI pushes releases to fleet {user}/{dev}",
            "balena login --token {v}",
        ],
    )
    S(
        "coap_dtls_psk",
        lambda: h(32),
        [
            "Golioth PSK creds for {dev}: PSK-ID {dev}@orchard-fleet, PSK {v}",
            'Zephyr prj.conf overlay: CONFIG_COAP_PSK_ID="{dev}" CONFIG_COAP_PSK="{v}"',
        ],
    )
    S(
        "mender_tenant_token",
        lambda: jwt({"mender.tenant": h(24), "iss": "Mender", "sub": h(24)}),
        [
            "mender.conf TenantToken for hosted mender: {v}",
            "flash script passes --tenant-token {v} to mender-setup",
        ],
    )
    S(
        "plc_password",
        pw,
        [
            "S7-1500 at {ip} (TIA access level 'full access incl. fail-safe') password: {v}",
            "CODESYS runtime on the Pi at {ip}: user Administrator, pass {v}",
            "Logix5580 in cabinet {n}: the source-protection key file password is {v}",
        ],
    )
    S(
        "scada_admin_password",
        pw,
        [
            "Ignition gateway https://{host}:8043 - admin login is admin / {v}",
            "WinCC OA root user on {host}: {v} (changed after the audit on {day})",
            "FactoryTalk SE service account FTSE_svc password {v}",
        ],
    )
    S(
        "opcua_user_password",
        pw,
        [
            "opc.tcp://{ip}:4840 uses UserName tokens: operator / {v}",
            'asyncua client:\nclient.set_user("{user}")\nclient.set_password("{v}")',
        ],
    )
    S(
        "hmi_vnc_password",
        lambda: pick(an, 8),
        [
            "VNC to the panel PC on line {n}: password {v}",
            "UltraVNC on the HMI at {ip}, view-only pw is separate, full-control pw {v}",
        ],
    )
    S(
        "industrial_gateway_password",
        pw,
        [
            "Moxa NPort 5150 at {ip} web console admin/{v}",
            "The Ewon Flexy at {site} - Talk2M device password {v}",
        ],
    )

    # ---------------- secret: game development ----------------
    S(
        "steam_web_api_key",
        lambda: H(32),
        [
            "https://api.steampowered.com/ISteamUser/GetPlayerSummaries/v2/?key={v}&steamids={steamid}",
            "STEAM_WEB_API_KEY={v} (the one registered to our studio domain)",
        ],
    )
    S(
        "steam_publisher_key",
        lambda: H(32),
        [
            "publisher Web API key for app {appid} (partner.steam-api.com only): {v}",
            "GrantPackage calls need the publisher key {v} - keep it server side",
        ],
    )
    S(
        "steam_gslt",
        lambda: H(32),
        [
            "dedicated server launch: ./srcds_run -game csgo +map de_dust2 +sv_setsteamaccount {v}",
            "GSLT for the EU fleet (app {appid}) = {v}",
        ],
    )
    S(
        "steam_guard_shared_secret",
        lambda: b64(20),
        [
            'build bot maFile:\n{{"account_name": "{user}", "shared_secret": "{v}", "revocation_code": "R{n}231"}}',
            "steam guard shared_secret for the CI account is {v} - generates the 2FA codes for steamcmd",
        ],
    )
    S(
        "steamcmd_login_password",
        pw,
        [
            "steamcmd +login {user}_builds {v} +run_app_build ../scripts/app_build_{appid}.vdf +quit",
            "Steamworks build account {user}_builds password: {v}",
        ],
    )
    S(
        "steam_login_secure_cookie",
        lambda: "{}%7C%7C{}".format(
            "76561198" + str(r.randrange(10**8, 10**9)),
            jwt(
                {
                    "iss": "r:" + H(16),
                    "sub": "7656119" + str(r.randrange(10**9, 10**10)),
                    "aud": ["web"],
                }
            ),
        ),
        [
            "copied from the browser so the scraper can hit the partner site: steamLoginSecure={v}",
            "Cookie: steamLoginSecure={v}; sessionid={n}a{title}",
        ],
    )
    S(
        "eos_client_secret",
        lambda: b64u(32),
        [
            "EOS dev portal, client 'matchmaker-backend' with TrustedServer policy: ClientSecret {v}",
            "EOS_CLIENT_SECRET={v}\n# trusted server client, used for sanction lookups",
        ],
    )
    S(
        "playfab_secret_key",
        lambda: pick(up, 52),
        [
            "PlayFab title {title} developer secret key: {v}",
            "curl -X POST https://{title}.playfabapi.com/Server/GetUserData -H 'X-SecretKey: {v}'",
        ],
    )
    S(
        "unity_service_account_secret",
        lambda: pick(an, 32),
        [
            "Unity Gaming Services service account (key id {uuid}) secret: {v}",
            "UGS CLI: ugs login --service-key-id {uuid} --secret-key-stdin <<< {v}",
        ],
    )
    S(
        "perforce_password",
        pw,
        [
            "P4PORT=ssl:perforce.{host}:1666 P4USER=build P4PASSWD={v}",
            "p4 -u build -P {v} sync //depot/Game/Main/...",
        ],
    )
    S(
        "perforce_ticket",
        lambda: H(32),
        [
            "~/.p4tickets on the farm agent: perforce.studio.internal:1666=buildfarm:{v}",
            "P4TICKETS entry we copied to the new runner: ssl:10.4.0.12:1666=build:{v}",
        ],
    )
    S(
        "console_devkit_password",
        pw,
        [
            "Xbox devkit Device Portal https://{ip}:11443 user devkit / {v}",
            "Shared devkit #{n} Target Manager account password {v}",
        ],
    )
    S(
        "discord_bot_token",
        lambda: (
            f"{base64.b64encode(str(r.randrange(10**17, 10**18)).encode()).decode().rstrip('=')}.{b64u(4)[:6]}.{b64u(28)[:38]}"
        ),
        [
            "community server bot token (posts patch notes): {v}",
            "DISCORD_TOKEN={v}",
        ],
    )
    S(
        "aws_secret_access_key",
        lambda: pick(an + "+/", 40),
        [
            "GameLift fleet uploader: AKIA{title}{n:02d}Q7LM3XZ2P / {v}",
            "aws_secret_access_key = {v}\n# profile gamelift-ci",
        ],
    )

    # ---------------- secret: fintech / crypto exchanges ----------------
    S(
        "binance_api_secret",
        lambda: pick(an, 64),
        [
            "binance sub-account for the market maker: apiKey {addr_short} secretKey {v}".replace(
                "{addr_short}", "vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIPy6utIco14y7Ju91duEh8A"
            ),
            "BINANCE_API_SECRET={v}\nBINANCE_TESTNET=false",
        ],
    )
    S(
        "coinbase_cdp_private_key",
        ec_key,
        [
            "Coinbase Advanced Trade key organizations/{uuid}/apiKeys/{uuid}\n{v}",
            "CDP API key private half (trade + view, no transfer):\n{v}",
        ],
    )
    S(
        "kraken_private_key",
        lambda: b64(64),
        [
            "kraken API: key K-{title} private key {v}",
            "KRAKEN_API_SECRET={v}",
        ],
    )
    S(
        "okx_api_secret",
        lambda: H(32),
        [
            "OKX api key {uuid}, secret {v}, passphrase is in 1Password",
            "okx.secret_key={v}",
        ],
    )
    S(
        "exchange_api_passphrase",
        pw,
        [
            "OKX API passphrase for the hedging bot: {v}",
            "Coinbase Exchange (legacy) key: passphrase {v}, secret in the env file",
        ],
    )
    S(
        "bybit_api_secret",
        lambda: pick(an, 36),
        [
            "bybit unified account, read+trade key, secret: {v}",
            "BYBIT_API_SECRET={v}",
        ],
    )
    S(
        "fix_logon_password",
        pw,
        [
            "FIX logon that the UAT venue accepts:\n8=FIX.4.4|9=112|35=A|49=ACMEQT|56=VENUEX|34=1|52=20261203-08:00:01|98=0|108=30|553=acme_fix|554={v}|10=071|",
            "quickfix session cfg for LD4:\nSenderCompID=ACMEQT\nTargetCompID=LMAXT\nPassword={v}",
        ],
    )
    S(
        "stripe_live_secret_key",
        lambda: "sk_live_" + r.choice(["", "51"]) + pick(an, r.choice([24, 97])),
        [
            "STRIPE_SECRET_KEY={v}",
            "prod stripe key (payments service only): {v}",
            'stripe.api_key = "{v}"  # TODO move to env before merging',
        ],
    )
    S(
        "stripe_restricted_key",
        lambda: "rk_live_" + pick(an, 99),
        [
            "restricted key for the refunds worker (write: refunds, read: charges): {v}",
            "RK for reporting: {v}",
        ],
    )
    S(
        "stripe_webhook_secret",
        lambda: "whsec_" + pick(an, 32),
        [
            "STRIPE_WEBHOOK_SECRET={v} for the /hooks/stripe endpoint in prod",
            "webhook signing secret (endpoint we_1{title}): {v}",
        ],
    )
    S(
        "paypal_client_secret",
        lambda: "E" + pick(an + "-_", 79),
        [
            "PayPal live REST app: client secret {v}",
            "PAYPAL_CLIENT_SECRET={v}",
        ],
    )
    S(
        "square_access_token",
        lambda: "EAAA" + pick(an + "-_", 60),
        [
            "Square production access token for the POS sync: {v}",
            "Authorization: Bearer {v}  (Square v2 API)",
        ],
    )
    S(
        "adyen_api_key",
        lambda: "AQE" + b64(45) + "-" + b64(32) + "-" + pick(an + ";%}", 16),
        [
            "Adyen ws@Company.Acme live API key: {v}",
            "ADYEN_API_KEY={v}",
        ],
    )
    S(
        "braintree_private_key",
        lambda: h(32),
        [
            "Braintree production: merchant_id {title}x{n}k, public_key 8k{n}tq2, private_key {v}",
            "BT_PRIVATE_KEY={v}",
        ],
    )
    S(
        "authorize_net_transaction_key",
        lambda: pick(an, 16),
        [
            "Authorize.Net API login 7h{n}Qe transaction key {v}",
            "AUTHNET_TRANSACTION_KEY={v}",
        ],
    )
    S(
        "plaid_secret",
        lambda: h(30),
        [
            "Plaid production secret {v} (client_id in env)",
            "PLAID_SECRET={v}\nPLAID_ENV=production",
        ],
    )
    S(
        "exchange_totp_seed",
        lambda: pick(b32, 32),
        [
            "Kraken 2FA seed for the treasury login: otpauth://totp/Kraken:treasury?secret={v}&issuer=Kraken",
            "TOTP secret for the Binance ops account (so the bot can withdraw): {v}",
        ],
    )

    # ---------------- secret: telecom ----------------
    S(
        "twilio_auth_token",
        lambda: h(32),
        [
            "Twilio account {acsid}, auth token {v}",
            "TWILIO_AUTH_TOKEN={v}",
            "curl -u {acsid}:{v} https://api.twilio.com/2010-04-01/Accounts/{acsid}/Messages.json",
        ],
    )
    S(
        "twilio_api_key_secret",
        lambda: pick(an, 32),
        [
            "Twilio API key SK4e1f0c9d2ab377e6d19fe0a5c1b2{n:02d}a9 secret {v}",
            "TWILIO_API_SECRET={v}",
        ],
    )
    S(
        "sip_trunk_password",
        pw,
        [
            "pjsip.conf\n[trunk-auth]\ntype=auth\nauth_type=userpass\nusername={n}44120\npassword={v}",
            "SIP REGISTER to {carrier}: user 3128{n}990, secret {v}, realm {carrier}",
            "sip.conf peer for the carrier:\n[{carrier}]\ntype=peer\nsecret={v}\nhost={carrier}",
        ],
    )
    S(
        "asterisk_ami_secret",
        pw,
        [
            "manager.conf\n[crm_dialer]\nsecret = {v}\npermit = {ip}/255.255.255.255",
            "AMI login for the wallboard: Action: Login / Username: wallboard / Secret: {v}",
        ],
    )
    S(
        "freeswitch_esl_password",
        pw,
        [
            'event_socket.conf.xml: <param name="password" value="{v}"/>',
            "fs_cli -H {ip} -p {v}",
        ],
    )
    S(
        "smpp_bind_password",
        lambda: pick(an, 8),
        [
            "SMSC bind for the OTP route: bind_transceiver system_id=acme_otp password={v} host {ip}:2775",
            "Kannel smsc group: smsc-username = acme{n}  smsc-password = {v}",
        ],
    )
    S(
        "vonage_api_secret",
        lambda: pick(an, 16),
        [
            "VONAGE_API_KEY={title}{n:03d}\nVONAGE_API_SECRET={v}",
            "nexmo sms: https://rest.nexmo.com/sms/json?api_key=a1b2{n}&api_secret={v}&to={phone}",
        ],
    )
    S(
        "plivo_auth_token",
        lambda: pick(an, 40),
        [
            "Plivo auth id MA{title}Q2ZJYTEXNT, auth token {v}",
            "PLIVO_AUTH_TOKEN={v}",
        ],
    )
    S(
        "telnyx_api_key",
        lambda: "KEY0" + H(31) + "_" + pick(an, 22),
        [
            "Telnyx v2 key for number porting: {v}",
            "Authorization: Bearer {v}  # telnyx messaging profile",
        ],
    )
    S(
        "sim_ki",
        lambda: H(32),
        [
            "SIM batch B{n}: IMSI 00101000000{n:04d}, Ki {v}, OPc in the same CSV",
            "open5gs subscriber add: imsi 99970000000{n:04d} ki {v} opc {joineui}{deveui}",
        ],
    )
    S(
        "voip_provisioning_password",
        pw,
        [
            "Yealink auto-provision server creds: {user} / {v} (https://prov.{carrier}/)",
            "Polycom phones pull config with the HTTP digest password {v}",
        ],
    )

    # ---------------- secret: blockchain node operators ----------------
    S(
        "eth_private_key",
        lambda: r.choice(["0x", ""]) + h(64),
        [
            "deployer wallet for the L2 contracts, private key {v}",
            "PRIVATE_KEY={v}\nRPC_URL=http://{ip}:8545",
            "hot wallet that tops up the relayers - key: {v}",
        ],
    )
    S(
        "bip39_mnemonic",
        lambda: " ".join(r.choice(WORDS) for _ in range(r.choice([12, 24]))),
        [
            "seed phrase for the validator withdrawal wallet:\n{v}",
            'MNEMONIC="{v}"',
        ],
    )
    S(
        "keystore_password",
        pw,
        [
            "geth --unlock {addr} --password /root/pw.txt  (pw.txt contains: {v})",
            "the validator keystores were all encrypted with {v}",
        ],
    )
    S(
        "engine_api_jwt_secret",
        lambda: r.choice(["0x", ""]) + h(64),
        [
            "/var/lib/ethereum/jwt.hex shared by geth and lighthouse: {v}",
            "engine API auth between reth and prysm: --jwt-secret-hex {v}",
        ],
    )
    S(
        "alchemy_api_key",
        lambda: pick(an + "-_", 32),
        [
            "RPC_URL=https://eth-mainnet.g.alchemy.com/v2/{v}",
            "alchemy key for the indexer (paid tier): {v}",
        ],
    )
    S(
        "quicknode_endpoint_token",
        lambda: h(40),
        [
            "quicknode solana endpoint https://crimson-late-{n}.solana-mainnet.quiknode.pro/{v}/",
            "QN token {v} - endpoint is rate limited per token",
        ],
    )
    S(
        "bitcoind_rpc_password",
        pw,
        [
            "bitcoin.conf\nserver=1\nrpcuser={user}\nrpcpassword={v}\nrpcallowip={ip}",
            'curl --user {user}:{v} --data-binary \'{{"method":"getblockcount"}}\' http://{ip}:8332/',
        ],
    )
    S(
        "bitcoin_wif_private_key",
        lambda: r.choice("KL") + pick(b58, 51),
        [
            "sweep this WIF into the cold wallet: {v}",
            'importprivkey {v} "fees" false',
        ],
    )
    S(
        "bip32_xprv",
        lambda: "xprv9s21ZrQH143K" + pick(b58, 95),
        [
            "master xprv for the exchange deposit tree: {v}",
            "XPRV={v}",
        ],
    )
    S(
        "solana_keypair",
        lambda: "[" + ",".join(str(x) for x in rb(64)) + "]",
        [
            "~/.config/solana/validator-keypair.json:\n{v}",
            "vote account authority keypair (paste into the file): {v}",
        ],
    )
    S(
        "tendermint_validator_key",
        lambda: b64(64),
        [
            'priv_validator_key.json:\n{{"address": "{joineui}{deveui}{title}{n:03d}", "priv_key": {{"type": "tendermint/PrivKeyEd25519", "value": "{v}"}}}}',
            "cosmos validator consensus priv_key value {v}",
        ],
    )
    S(
        "near_private_key",
        lambda: "ed25519:" + pick(b58, 88),
        [
            'NEAR validator key {{"account_id": "pool.poolv1.near", "secret_key": "{v}"}}',
            "near full-access key for the ops account: {v}",
        ],
    )
    S(
        "etherscan_api_key",
        lambda: pick(up, 34),
        [
            "ETHERSCAN_API_KEY={v}",
            "hardhat verify uses etherscan apiKey {v}",
        ],
    )
    S(
        "validator_mtls_private_key",
        ed_key,
        [
            "ed25519 key the validator client uses for mTLS to web3signer (PKCS#8):\n{v}",
        ],
    )
    S(
        "flashbots_auth_signer_key",
        lambda: "0x" + h(64),
        [
            "FLASHBOTS_AUTH_KEY={v}  # bundle reputation signer, not a funded wallet but don't leak it",
            "searcher relay auth: X-Flashbots-Signature is made with key {v}",
        ],
    )
    S(
        "rpc_basic_auth_url",
        urlpw,
        [
            "archive node behind nginx basic auth: https://indexer:{v}@rpc.{host}/",
            "ETH_RPC=http://erigon:{v}@{ip}:8545",
        ],
    )
    S(
        "infura_api_key_secret",
        lambda: h(32),
        [
            "Infura project {uuid}: API key secret {v} (required for basic auth on the project)",
            "INFURA_API_KEY_SECRET={v}",
        ],
    )
    S(
        "steam_app_ticket_key",
        lambda: h(64),
        [
            "Encrypted App Ticket key for app {appid} (Steamworks > SDK Auth): {v}",
            "backend decrypts Steam app tickets with STEAM_TICKET_KEY={v}",
        ],
    )
    S(
        "messagebird_access_key",
        lambda: pick(an, 25),
        [
            "MessageBird live access key for OTP SMS: {v}",
            "curl -H 'Authorization: AccessKey {v}' https://rest.messagebird.com/messages",
        ],
    )

    # ---------------- benign: device identifiers ----------------
    B(
        "lorawan_dev_eui",
        lambda: H(16),
        [
            "registered {dev} in TTN, DevEUI {v} (printed on the sticker under the battery)",
            "ttn-lw-cli end-devices get soil-app {dev} --dev-eui {v} --formatters.format json",
            "uplinks from DevEUI {v} stopped at 03:12, RSSI was -118 before that",
        ],
    )
    B(
        "lorawan_join_eui",
        lambda: "70B3D57ED" + H(7),
        [
            "JoinEUI / AppEUI for the whole batch is {v}; it's not a key, just the join server id",
            "join server at {host} answers for JoinEUI {v}",
        ],
    )
    B(
        "lorawan_dev_addr",
        lambda: "260B" + H(4),
        [
            "ABP device got DevAddr {v} - the 0x26 prefix means TTN's NetID",
            "filter the gateway log by devaddr {v}",
        ],
    )
    B(
        "lorawan_gateway_eui",
        lambda: f"{H(6)}FFFE{H(6)}",
        [
            "RAK7268 on the roof: gateway EUI {v}, packet forwarder to eu1 udp 1700",
            "Basic Station router id {v} shows disconnected since {day}",
        ],
    )
    B(
        "lorawan_phy_payload",
        lambda: b64(r.randrange(20, 40)),
        [
            'raw uplink from the gateway log (encrypted FRMPayload, useless without keys): phyPayload "{v}"',
            "decoder test input, base64 frame {v} -> expect temperature 21.4",
        ],
    )
    B(
        "device_serial_number",
        lambda: f"{pick(up, 3)}-{r.randrange(1000, 9999)}-{pick(up, 4)}-{r.randrange(10, 99)}",
        [
            "RMA for unit serial {v}: relay K2 welded shut",
            "{dev} serial {v}, firmware 4.2.1, installed at {site}",
        ],
    )
    B(
        "mac_address",
        lambda: ":".join(H(2) for _ in range(6)),
        [
            "DHCP reservation for the HMI at {ip}: MAC {v}",
            "the ESP32 with base MAC {v} keeps brown-out resetting",
        ],
    )
    B(
        "imei",
        lambda: luhn("35" + "".join(str(r.randrange(10)) for _ in range(12))),
        [
            "tracker {dev} modem IMEI {v} - whitelisted with the carrier",
            "AT+CGSN returned {v}",
        ],
    )
    B(
        "iccid",
        lambda: luhn("8944" + "".join(str(r.randrange(10)) for _ in range(14))),
        [
            "SIM ICCID {v} is in the spare pool, not activated",
            "swap SIM in {dev}; new ICCID {v}",
        ],
    )
    B(
        "imsi",
        lambda: "310260" + "".join(str(r.randrange(10)) for _ in range(9)),
        [
            "attach fails for IMSI {v} with EMM cause 15",
            "open5gs webui shows subscriber {v} with default APN internet",
        ],
    )
    B(
        "ble_service_uuid",
        lambda: f"6e40000{r.randrange(1, 4)}-b5a3-f393-e0a9-e50e24dcca9e",
        [
            "Nordic UART service characteristic {v} - notify only",
            "firmware advertises {v}, the app filters scans on it",
        ],
    )
    B(
        "thread_dataset_public_fields",
        lambda: h(16),
        [
            "Thread network 'OpenThread-{title}' extended PAN id {v}, channel 20 (the network key is not here, ask ops)",
            "border router shows extpanid {v} and mesh-local prefix fd11:22::/64",
        ],
    )
    B(
        "zigbee_default_tc_link_key",
        lambda: "5A6967426565416C6C69616E63653039",
        [
            "the Zigbee HA default trust center link key is public: {v} (ASCII 'ZigBeeAlliance09'); it's why install codes exist",
            "sniffing our own network in Wireshark: add the well-known default TC link key {v}, then the network key is decrypted from the join",
        ],
    )
    B(
        "matter_test_passcode",
        lambda: "20202021",
        [
            "Matter SDK example apps all use the test setup passcode {v} and discriminator 3840 - fine for the lab, production units get unique ones",
        ],
    )
    B(
        "firmware_sha256",
        lambda: h(64),
        [
            "fw 4.3.0 release image sha256 {v}",
            'OTA manifest: {{"version": "2.8.1", "sha256": "{v}", "size": 913408}}',
            "if the bootloader reports digest {v} the image is the known-good build",
        ],
    )
    B(
        "crc_checksum",
        lambda: "0x" + H(8),
        [
            "CRC32 of the config block should be {v}; mismatch means flash wear",
            "Modbus frame check: computed CRC {v}",
        ],
    )
    B(
        "modbus_frame_hex",
        lambda: " ".join(H(2) for _ in range(r.randrange(8, 14))),
        [
            "captured Modbus RTU request: {v}",
            "CAN frame id 0x18FF50E5 data {v} = engine hours",
        ],
    )
    B(
        "plc_keyswitch_position",
        lambda: "RUN-P",
        [
            "the key on the S7-300 CPU is in {v}; switch to STOP before downloading",
            "keyswitch photo shows {v} - remote program allowed",
        ],
    )
    B(
        "mosquitto_password_hash",
        lambda: f"$7$101${b64(12)}${b64(64)}",
        [
            "mosquitto_passwd output (hashed, pbkdf2-sha512) for user ingest:\ningest:{v}",
            "password_file line for {user}: {user}:{v}",
        ],
    )
    B(
        "hmi_bcrypt_hash",
        lambda: "$2b$12$" + pick(an + "./", 53),
        [
            "user table in the HMI sqlite stores bcrypt: operator -> {v}",
        ],
    )
    B(
        "mqtt_env_reference",
        lambda: "${MQTT_PASSWORD}",
        [
            'telegraf.conf now reads password = "{v}" from the systemd EnvironmentFile',
            'node-red settings: credentialSecret: process.env.NR_CRED, broker pass "{v}"',
        ],
    )
    B(
        "device_certificate_pem",
        lambda: pem("CERTIFICATE", bytes.fromhex("308201") + rb(r.randrange(100, 140))),
        [
            "device cert for {dev} (public, goes in the fleet registry):\n{v}",
            "CA bundle entry we pin on the gateways:\n{v}",
        ],
    )
    B(
        "public_key_pem",
        ec_pub,
        [
            "firmware signing PUBLIC key baked into the bootloader:\n{v}",
            "verification key for {dev} attestation (public half only):\n{v}",
        ],
    )
    B(
        "cert_fingerprint",
        lambda: ":".join(H(2) for _ in range(32)),
        [
            "broker TLS cert SHA-256 fingerprint {v}",
            "pin this fingerprint on the loggers: {v}",
        ],
    )

    # ---------------- benign: game development ----------------
    B(
        "steam_app_id",
        lambda: str(r.randrange(400000, 2900000)),
        [
            "our Steam app id is {v}, demo is the next id",
            "steam_appid.txt contains {v}",
        ],
    )
    B(
        "steam_id64",
        lambda: "7656119" + str(r.randrange(8000000000, 9999999999)),
        [
            "banned cheater SteamID64 {v}",
            "QA account steamid {v} is whitelisted for the beta branch",
        ],
    )
    B(
        "steam_depot_manifest",
        lambda: str(r.randrange(10**18, 9 * 10**18)),
        [
            "rollback: set branch default to depot 1420{n} manifest {v}",
            "download_depot {appid} {appid}1 {v}",
        ],
    )
    B(
        "eos_deployment_ids",
        lambda: h(32),
        [
            "EOS ProductId {v}, SandboxId is the live one, DeploymentId in DefaultEngine.ini",
            "EOS DeploymentId {v} (these ids are public, they ship in every build)",
        ],
    )
    B(
        "eos_game_client_id",
        lambda: "xyza7891" + pick(an, 24),
        [
            "EOS ClientId {v} with the GameClient policy - it ships in the client build anyway",
        ],
    )
    B(
        "playfab_title_id",
        lambda: H(5),
        [
            "PlayFab TitleId {v} - all clients call {v}.playfabapi.com",
            "switch the editor extension to title {v} before publishing",
        ],
    )
    B(
        "unity_project_id",
        uuid,
        [
            "Unity Cloud project id {v}, environment production",
            "ProjectSettings.asset: cloudProjectId: {v}",
        ],
    )
    B(
        "photon_app_id",
        uuid,
        [
            "Photon PUN AppId {v} lives in PhotonServerSettings and ships in the client",
        ],
    )
    B(
        "unreal_asset_guid",
        lambda: H(32),
        [
            "cook warning about package GUID {v} - duplicate asset after the merge",
            "DDC key collision for GUID {v}",
        ],
    )
    B(
        "game_input_keybinding",
        lambda: "Key=LeftShift",
        [
            'DefaultInput.ini sprint mapping: ActionMappings=(ActionName="Sprint",{v})',
        ],
    )
    B(
        "documented_example_credential",
        lambda: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        [
            "the GameLift tutorial uses AWS's documentation sample pair AKIAIOSFODNN7EXAMPLE / {v}; don't confuse it with ours",
        ],
    )

    # ---------------- benign: fintech / crypto exchanges ----------------
    B(
        "stripe_publishable_key",
        lambda: "pk_live_51" + pick(an, 97),
        [
            "checkout page loads Stripe.js with the publishable key {v}",
            "STRIPE_PUBLISHABLE_KEY={v}  # safe in the frontend bundle",
        ],
    )
    B(
        "stripe_object_id",
        lambda: (
            r.choice(["cus_", "ch_3", "pi_3", "evt_1", "acct_1"]) + pick(an, r.choice([14, 24]))
        ),
        [
            "refund stuck for {v}, support ticket open",
            "webhook replay: stripe events resend {v}",
            "dispute lost on {v} - customer's bank overruled",
        ],
    )
    B(
        "stripe_docs_test_key",
        lambda: "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        [
            "the Stripe docs sample key {v} appears all over their API reference; our tests use stripe-mock instead",
        ],
    )
    B(
        "stripe_test_card",
        lambda: "4242 4242 4242 4242",
        [
            "test card {v}, any future expiry, any CVC",
            "decline testing: {v} succeeds, 4000 0000 0000 0002 declines",
        ],
    )
    B(
        "paypal_client_id",
        lambda: "A" + pick(an + "-_", 79),
        [
            'PayPal JS SDK <script src="https://www.paypal.com/sdk/js?client-id={v}&currency=EUR">',
        ],
    )
    B(
        "square_application_id",
        lambda: "sq0idp-" + pick(an + "-_", 22),
        [
            "Square Web Payments SDK appId {v}, location L{title}",
        ],
    )
    B(
        "braintree_tokenization_key",
        lambda: f"production_{pick(lo, 8)}_{pick(lo, 16)}",
        [
            "drop-in UI authorization = tokenization key {v} (client-side, publishable)",
        ],
    )
    B(
        "fix_session_ids",
        lambda: f"SenderCompID=ACMEQT{r.randrange(1, 9)}",
        [
            "quickfix session for the new venue:\nBeginString=FIX.4.4\n{v}\nTargetCompID=VENUEX\nHeartBtInt=30",
            "FIX: counterparty wants {v} uppercase, heartbeat 30s, resets at 17:05 NY",
        ],
    )
    B(
        "fix_execution_report",
        lambda: f"11={uuid()}",
        [
            "fill from the venue: 8=FIX.4.4|35=8|49=VENUEX|56=ACMEQT|{v}|17=E{n}93|39=2|55=BTC/USD|32=0.25|31=64120.5|",
        ],
    )
    B(
        "exchange_order_id",
        lambda: str(r.randrange(10**18, 10**19)),
        [
            "binance orderId {v} partially filled, clientOrderId bot-{n}-{title}",
            "cancel order {v} manually if the bot restarts",
        ],
    )
    B(
        "coinbase_api_key_name",
        lambda: f"organizations/{uuid()}/apiKeys/{uuid()}",
        [
            "the CDP key name is {v}; the private key stays in KMS",
        ],
    )
    B(
        "iban_example",
        lambda: "DE89 3704 0044 0532 0130 00",
        [
            "SEPA form validation fixture uses the textbook IBAN {v}",
        ],
    )
    B(
        "payment_merchant_id",
        lambda: f"MID {r.randrange(10**10, 10**11)}",
        [
            "acquirer config: {v}, terminal T{n}0429, MCC 5734",
        ],
    )
    B(
        "twilio_account_sid",
        lambda: "AC" + h(32),
        [
            "Twilio account SID {v} (auth token lives in Secrets Manager)",
            "which subaccount sent it? {v}",
        ],
    )
    B(
        "twilio_resource_sid",
        lambda: r.choice(["SM", "CA", "PN", "MG"]) + h(32),
        [
            "delivery failed 30007 on {v}",
            "status callback for {v} never arrived",
        ],
    )

    # ---------------- benign: telecom ----------------
    B(
        "phone_number",
        lambda: f"+44{r.randrange(7000000000, 7999999999)}",
        [
            "OTP sender number {v}, alphanumeric sender id not allowed in that country",
            "port-in request for {v} scheduled",
        ],
    )
    B(
        "sip_uri",
        lambda: f"sip:{r.randrange(1000, 9999)}@{r.choice(carriers)};transport=tls",
        [
            "route outbound calls to {v}",
            "INVITE {v} SIP/2.0 returns 403 - IP not in the carrier ACL",
        ],
    )
    B(
        "sip_call_id",
        lambda: f"{h(32)}@{r.randrange(10, 200)}.{r.randrange(0, 255)}.4.9",
        [
            "one-way audio on Call-ID: {v}, branch=z9hG4bK{n}a",
            "sngrep filter on call id {v}",
        ],
    )
    B(
        "smpp_system_id",
        lambda: f"acme_otp{r.randrange(1, 9)}",
        [
            "SMSC expects system_id {v} and system_type OTP; password handed over by phone",
            "bind_resp status 0x0E for {v} = invalid password, asked the carrier to reset",
        ],
    )
    B(
        "sip_digest_response",
        lambda: h(32),
        [
            'REGISTER Authorization: Digest username="{n}44", realm="voip", nonce="{title}{n}", uri="sip:voip", response="{v}"',
        ],
    )

    # ---------------- benign: blockchain ----------------
    B(
        "eth_address",
        lambda: "0x" + h(40),
        [
            "fees go to treasury address {v}",
            "relayer {v} is low on gas",
            "validator fee recipient --suggested-fee-recipient={v}",
        ],
    )
    B(
        "eth_tx_hash",
        lambda: "0x" + h(64),
        [
            "deploy tx {v} confirmed in block 19{n}2231",
            "stuck tx: {v}, replaced with higher priority fee",
            "etherscan.io/tx/{v}",
        ],
    )
    B(
        "block_or_state_root",
        lambda: "0x" + h(64),
        [
            "reorg at height 21{n}990: new block hash {v}",
            "state root after the hardfork test {v}",
        ],
    )
    B(
        "event_topic_hash",
        lambda: "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
        [
            "ERC-20 Transfer event topic0 is {v} = keccak256('Transfer(address,address,uint256)')",
            "indexer filter topics=[{v}] to catch every token transfer",
        ],
    )
    B(
        "erc20_token_contract",
        lambda: "0x" + h(40),
        [
            "USDC-style token contract on the testnet fork: {v}, 6 decimals",
            "token allowance for router on {v} set to max",
        ],
    )
    B(
        "btc_address",
        lambda: "bc1q" + pick("023456789acdefghjklmnpqrstuvwxyz", 38),
        [
            "deposit address for the OTC desk {v}",
            "watch-only wallet tracks {v}",
        ],
    )
    B(
        "btc_txid",
        lambda: h(64),
        [
            "bitcoin-cli getrawtransaction {v} true",
            "CPFP the payout txid {v}",
        ],
    )
    B(
        "bip32_xpub",
        lambda: "xpub661MyMwAqRbc" + pick(b58, 95),
        [
            "watch-only xpub for the cold storage (public, derives addresses only): {v}",
            "BTCPay store derivation scheme {v}",
        ],
    )
    B(
        "bls_validator_pubkey",
        lambda: "0x" + h(96),
        [
            "validator {n}4120 pubkey {v} got slashed? no - just offline",
            "deposit_data pubkey {v}",
        ],
    )
    B(
        "withdrawal_credentials",
        lambda: "0x010000000000000000000000" + h(40),
        [
            "withdrawal_credentials {v} (0x01 type, points at the multisig)",
        ],
    )
    B(
        "enode_url",
        lambda: (
            f"enode://{h(128)}@{r.randrange(11, 220)}.{r.randrange(0, 255)}.7.{r.randrange(2, 250)}:30303"
        ),
        [
            "static peer for the archive node: {v}",
            'admin.addPeer("{v}")',
        ],
    )
    B(
        "libp2p_peer_id",
        lambda: "16Uiu2HAm" + pick(b58, 44),
        [
            "lighthouse --boot-nodes includes peer {v}",
            "our beacon node peer id is {v}",
        ],
    )
    B(
        "solana_pubkey",
        lambda: pick(b58, 44),
        [
            "vote account pubkey {v}",
            "solana balance {v} --url mainnet-beta",
        ],
    )
    B(
        "solana_tx_signature",
        lambda: pick(b58, 88),
        [
            "airdrop landed, signature {v}",
            "solana confirm -v {v}",
        ],
    )
    B(
        "tx_signature_rsv",
        lambda: "0x" + h(130),
        [
            "signed EIP-712 permit (signature is public once submitted): {v}",
        ],
    )
    B(
        "ipfs_cid",
        lambda: "bafybei" + pick("abcdefghijklmnopqrstuvwxyz234567", 52),
        [
            "NFT metadata pinned at ipfs://{v}",
        ],
    )
    B(
        "public_rpc_endpoint",
        lambda: r.choice(
            [
                "https://cloudflare-eth.com",
                "https://ethereum-rpc.publicnode.com",
                "https://api.mainnet-beta.solana.com",
            ]
        ),
        [
            "fallback RPC when our node lags: {v} (public, no key, rate limited)",
            "for quick reads just use {v}",
        ],
    )
    B(
        "well_known_dev_key",
        lambda: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        [
            "hardhat/anvil local node: account #0 uses the published default key {v} - every tutorial has it, never fund it on a real chain",
        ],
    )
    B(
        "bip39_test_vector",
        lambda: r.choice(
            [
                "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
                "legal winner thank year wave sausage worth useful legal winner thank yellow",
            ]
        ),
        [
            'wallet unit tests use the BIP39 spec test vector "{v}" - public, never holds funds',
            "fixture mnemonic from the BIP39 reference vectors: {v}",
        ],
    )
    B(
        "keccak_function_selector",
        lambda: "0x" + h(8),
        [
            "calldata starts with selector {v} - decoded as swapExactTokensForTokens",
        ],
    )
    B(
        "ethereum_nonce_gas",
        lambda: f"nonce {r.randrange(100, 9000)}",
        [
            "relayer stuck at {v}, gas price 31 gwei",
        ],
    )

    # ---------------- benign: references, placeholders, redactions, talk ----------------
    P(
        "benign",
        "env_placeholder",
        [
            (
                "{{ vault_sip_password }}",
                "template for new installers: set the trunk credential to {v} and let the deploy fill it",
            ),
            ("<YOUR_APP_KEY>", "README snippet for the provisioning repo: AppKey={v}"),
            (
                "<paste-binance-secret-here>",
                'helm values: secretKey: "{v}"  # rendered at deploy time',
            ),
            (
                "${TWILIO_AUTH_TOKEN}",
                "docker-compose: TWILIO_AUTH_TOKEN: {v} (taken from the host env)",
            ),
            (
                "%PLAYFAB_SECRET%",
                "build.bat passes -secret {v} to the upload tool, set by the CI agent",
            ),
        ],
    )
    B(
        "xxx_placeholder_key",
        lambda: "sk_live_" + "X" * 24,
        [
            "docs example in our wiki: STRIPE_SECRET_KEY={v} (replace with the real one from the dashboard)",
        ],
    )
    B(
        "zero_filled_key",
        lambda: "0" * 32,
        [
            "factory default AppKey field reads {v} until the device is provisioned - it won't join like that",
            "LMIC example sketch ships with APPKEY all zeros ({v}); fill it from the console",
        ],
    )
    P(
        "benign",
        "vault_reference",
        [
            (
                "secret/data/ot/scada/ignition-admin",
                "admin credential moved to Vault at {v}; `vault kv get` it when needed",
            ),
            ("kv/telecom/sip-trunk-prod", "the CI job reads {v} with the approle, nothing on disk"),
            ("kv/gamedev/steam/gslt-eu", "rotate: vault kv put {v} token=@/dev/stdin"),
        ],
    )
    B(
        "cloud_secret_manager_ref",
        lambda: (
            f"arn:aws:secretsmanager:eu-west-1:{r.randrange(10**11, 10**12)}:secret:prod/payments/stripe-{pick(an, 6)}"
        ),
        [
            "payments service pulls the Stripe key from {v} at boot",
            "IAM policy grants GetSecretValue on {v} only",
        ],
    )
    P(
        "benign",
        "password_manager_ref",
        [
            (
                "op://OT-Ops/Ignition Gateway/password",
                "1Password CLI reference: {v} (op run injects it)",
            ),
            ("op://Trading/Kraken API/private key", "don't paste the secret, use {v}"),
        ],
    )
    P(
        "benign",
        "redacted_value",
        [
            ("sk_live_...4f2a", "log line after the scrubber: stripe_key={v}"),
            ("********", "ticket attachment showed password ********, the rest masked by the tool"),
            ("AppKey=•••• •••• •••• 9C1E", "screenshot of the console shows {v} only"),
            ("[REDACTED]", "FIX log after scrubbing: 553=acme_fix|554={v}|"),
        ],
    )
    P(
        "benign",
        "revoked_credential",
        [
            (
                lambda: h(32),
                "old Twilio auth token {v} was revoked on {day} after the leak; the primary was rolled and this value no longer authenticates",
            ),
            (
                lambda: H(32),
                "Steam GSLT {v} was deleted in the GSLT manager on {day} (banned server) - kept here only to match log lines",
            ),
        ],
    )
    B(
        "secret_handling_policy",
        lambda: "",
        [
            "Policy: LoRaWAN AppKeys are generated by the join server and never exported; devices get them at the factory over the HSM link.",
            "The SIP trunk password gets rotated each quarter; the carrier emails a reset link to noc@.",
            "Exchange API keys must be IP-whitelisted and withdrawal-disabled; ask treasury before creating one.",
            "Never commit steamcmd credentials; the build agent uses a cached login with Steam Guard.",
        ],
    )
    B(
        "password_feature_talk",
        lambda: "",
        [
            "TIA Portal: setting a CPU access-level password does not encrypt the project, it only blocks downloads.",
            "The validator client asks for the keystore password interactively at start; systemd unit uses a password file with 0400 perms.",
            "Kannel won't start if smsc-password is longer than 8 chars - SMPP 3.4 limit.",
        ],
    )
    P(
        "benign",
        "key_other_sense",
        [
            (
                "primary key",
                "the events table needs a composite primary key (device_id, ts) or inserts collide",
            ),
            ("key frame", "video encoder: key frame every 2s for the camera stream"),
            ("key of C minor", "menu music loops in the key of C minor, boss theme modulates up"),
            (
                "Registry key",
                "Registry key HKLM\\Software\\Studio\\Launcher holds the install path",
            ),
        ],
    )
    P(
        "benign",
        "token_other_sense",
        [
            (
                "token bucket",
                "MQTT ingest limiter is a token bucket: 200 msgs/s per device, burst 50",
            ),
            (
                "CancellationToken",
                "Unity async load passes a CancellationToken so scene changes abort cleanly",
            ),
            ("ERC-20 token", "the ERC-20 token we airdropped has 18 decimals, symbol TST"),
            ("lexer token", "the DBC parser chokes on the lexer token 'SG_MUL_VAL_'"),
        ],
    )
    B(
        "secret_other_sense",
        lambda: "secret level",
        [
            "level designers hid a {v} behind the waterfall in chapter 3; achievement id ACH_{title}",
        ],
    )
    B(
        "request_correlation_id",
        uuid,
        [
            "PlayFab error 1123, requestId {v}",
            "payment webhook idempotency key {v} reused - duplicate charge prevented",
        ],
    )
    B(
        "git_commit_sha",
        lambda: h(40),
        [
            "firmware built from commit {v}",
            "revert {v}, it broke the modbus timeout",
        ],
    )
    B(
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + pick(an + "+/", 43),
        [
            "add to authorized_keys on the validator: {v} ops@laptop",
            "gateway fleet deploy key (public): {v}",
        ],
    )
    B(
        "console_devkit_identifier",
        lambda: f"XDK-{pick(up, 4)}-{r.randrange(1000, 9999)}",
        [
            "devkit {v} is on the QA bench at {ip}, assigned to cert team",
            "shipping devkit {v} back to the platform holder",
        ],
    )
    B(
        "hex_blob_not_key",
        lambda: H(32),
        [
            "LoRa frame MIC mismatch: computed block B0 = {v}; payload decrypts fine, so it's the counter",
            "AES-CMAC over the unit-test frame came out {v}, same as the reference lib, so the MIC code is fine",
        ],
    )
    B(
        "random_nonce_iv",
        lambda: h(24),
        [
            "AES-GCM nonce in the OTA packet header {v} (public, sent with every chunk)",
        ],
    )
    B(
        "totp_code",
        lambda: str(r.randrange(100000, 999999)),
        [
            "used 2FA code {v} at 09:14, already expired",
        ],
    )
    B(
        "sip_carrier_ip_acl",
        lambda: f"{r.randrange(11, 220)}.{r.randrange(0, 255)}.40.0/24",
        [
            "carrier signalling range {v} needs to be in the SBC allowlist (IP auth, no password on this trunk)",
        ],
    )

    P(
        "benign",
        "rpc_url_placeholder",
        [
            ("<API_KEY>", "RPC template for new devs: https://eth-mainnet.g.alchemy.com/v2/{v}"),
        ],
    )
    B(
        "mqtt_topic_with_ids",
        lambda: H(16),
        [
            "subscribe to v3/soil-app@ttn/devices/eui-{v}/up for that sensor",
            "retained message stuck on plant/line2/{v}/state, clear it with an empty payload",
        ],
    )
    B(
        "azure_id_scope",
        lambda: "0ne00" + H(6),
        [
            "DPS ID scope {v} (not secret, printed in the device manual)",
        ],
    )
    B(
        "eth_keystore_public_fields",
        lambda: h(40),
        [
            "keystore file name UTC--2026-03-02T10-11-12.000Z--{v} tells you the address; the password is elsewhere",
        ],
    )
    P(
        "benign",
        "solana_program_id",
        [
            (
                "11111111111111111111111111111111",
                "instruction targets program {v} (System Program)",
            ),
            (
                "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
                "filter getProgramAccounts on {v} for the SPL token accounts",
            ),
        ],
    )
    B(
        "base64_config_blob",
        lambda: base64.b64encode(
            json.dumps(
                {"interval": r.randrange(30, 900), "adr": True, "fport": r.randrange(1, 200)}
            ).encode()
        ).decode(),
        [
            "downlink config payload (base64 JSON, just settings): {v}",
            "device twin desired property blob {v} - decodes to the report interval",
        ],
    )
    B(
        "steam_build_id",
        lambda: str(r.randrange(10_000_000, 19_999_999)),
        [
            "buildid {v} went live on the default branch at 18:00",
            "players on buildid {v} crash on the new shader cache",
        ],
    )

    assert all(row["value"] in row["text"] for row in rows)
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
