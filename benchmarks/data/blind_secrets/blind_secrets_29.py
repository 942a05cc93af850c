"""Blind secret-detection corpus 29: game developers and IoT/embedded engineers.

Brief: Steamworks web API keys and partner credentials, Epic Online Services client
secrets, PlayFab secret keys, Unity Cloud/Services credentials, console dev-kit
passwords, Photon/Mirror server secrets, Apple Game Center, anti-cheat keys, AWS IoT
device certificates and private keys, MQTT usernames/passwords, LoRaWAN AppKeys/NwkSKeys,
Particle/Blynk/ThingsBoard device tokens, Home Assistant long-lived tokens, OTA update
signing keys, serial console root passwords, U-Boot environment secrets, Wi-Fi
provisioning PSKs in firmware configs. Look-alikes: device EUIs and serial numbers, MAC
addresses, firmware hashes, app ids, public certificates, build numbers, GUIDs, asset
hashes, save-game checksums, public VAPID keys, topic names, example keys from vendor
docs clearly marked.

Written blind on 2026-12-07: the author did not read the detector, its tests or any
earlier corpus.

Run: python benchmarks/data/blind_secrets/blind_secrets_29.py [OUT.jsonl]
(writes JSONL rows {"label", "kind", "text", "value"}; stdout without an argument).

Kinds, secret: steam_web_api_key, steam_publisher_key, steam_partner_password,
steam_gslt, steam_app_ticket_key, eos_client_secret, eos_basic_auth, eos_encryption_key,
playfab_secret_key, playfab_entity_token, unity_cloud_build_key, unity_service_account,
devkit_password, xbox_partner_client_secret, photon_custom_auth_secret,
mirror_server_password, rcon_password, apple_p8_key, apple_iap_shared_secret,
anticheat_server_key, leaderboard_hmac_key, discord_bot_token, itch_butler_key,
nakama_encryption_key, game_backend_jwt_secret, aws_iot_private_key,
aws_iot_access_key, mqtt_url_password, mqtt_config_password, lorawan_appkey,
lorawan_nwkskey, lorawan_appskey, ttn_api_key, chirpstack_api_token,
particle_access_token, blynk_auth_token, thingsboard_access_token, ha_long_lived_token,
ota_signing_key, arduino_ota_password, esphome_api_key, serial_root_password,
uboot_bootstop_key, wpa_supplicant_psk, sdkconfig_wifi_password, wifi_secrets_header,
esp_prov_pop, azure_iot_sas_key, balena_api_key, golioth_psk, tuya_local_key,
zigbee_network_key, zwave_s2_key, nodered_credential_secret, influx_token,
adafruit_io_key, arduino_cloud_secret, gateway_ssh_private_key, gateway_admin_password,
mender_device_token, flash_encryption_key, matter_wifi_psk_nvs.

Kinds, benign: steam_appid, steam_id64, steam_depot_manifest, steam_build_id,
steam_key_placeholder, steam_key_vault_ref, eos_product_ids, eos_client_id,
playfab_title_id, playfab_key_redacted, unity_project_guid, unity_meta_guid,
asset_bundle_hash, save_checksum, photon_app_id, apple_key_id, game_center_leaderboard,
anticheat_public_key, discord_public_key, dev_eui, join_eui, dev_addr,
lorawan_doc_example, mac_address, firmware_sha256, ota_public_key, aws_iot_certificate,
aws_iot_cert_id, aws_doc_example_key, mqtt_topic, ha_secret_reference,
esphome_secret_ref, particle_device_id, blynk_template_id, thingsboard_device_id,
vapid_public_key, uboot_env_public, serial_number, imei_iccid, git_commit_sha,
image_digest, wifi_ssid_only, wifi_placeholder, secure_boot_digest, efuse_status_note,
zigbee_pan_ids, zwave_home_id, tuya_device_id, revoked_key_note, console_title_ids,
unity_iap_public_key, apple_issuer_id, ttn_key_id, build_number, password_policy_talk,
uuid_session_id_log, rcon_disabled_note, crc_table_constant, game_seed,
matter_vendor_product, key_rotation_ticket, lfs_oid, addressables_hash,
shadow_document, jwt_public_header, env_var_names, hmac_algorithm_note,
public_ssh_key, cert_fingerprint, coap_psk_identity.
"""

# ruff: noqa: E501
from __future__ import annotations

import base64
import json
import random
import string
import sys

SEED = 2929


def corpus() -> list[dict]:
    r = random.Random(SEED)
    HEX = "0123456789abcdef"
    AN = string.ascii_letters + string.digits
    B32 = string.ascii_uppercase + "234567"

    def hx(n: int) -> str:
        return "".join(r.choice(HEX) for _ in range(n))

    def HX(n: int) -> str:
        return hx(n).upper()

    def an(n: int, alpha: str = AN) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    def b64(nbytes: int) -> str:
        return base64.b64encode(bytes(r.getrandbits(8) for _ in range(nbytes))).decode()

    def b64u(nbytes: int) -> str:
        return (
            base64.urlsafe_b64encode(bytes(r.getrandbits(8) for _ in range(nbytes)))
            .decode()
            .rstrip("=")
        )

    def uuid() -> str:
        h = hx(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def pem(label: str, nbytes: int) -> str:
        body = b64(nbytes)
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    def jwt(payload: dict, alg: str = "HS256") -> str:
        def enc(d: dict) -> str:
            return (
                base64.urlsafe_b64encode(json.dumps(d, separators=(",", ":")).encode())
                .decode()
                .rstrip("=")
            )

        return enc({"alg": alg, "typ": "JWT"}) + "." + enc(payload) + "." + b64u(32)

    def pw() -> str:
        words = [
            "Falcon",
            "ember",
            "Quartz",
            "tidal",
            "Moss",
            "vector",
            "Cobalt",
            "rift",
            "Juniper",
            "orbit",
        ]
        return (
            r.choice(words)
            + an(3, string.digits)
            + r.choice("!#%&*@$")
            + r.choice(words).lower()
            + an(2)
        )

    def mac() -> str:
        return ":".join(HX(2) for _ in range(6))

    rows: list[dict] = []

    def add(label: str, kind: str, gen, *templates: str) -> None:
        for t in templates:
            v = gen()
            rows.append({"label": label, "kind": kind, "text": t.replace("{v}", v), "value": v})

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets: games
    add(
        S,
        "steam_web_api_key",
        lambda: HX(32),
        "Steam Web API key for the stats dashboard: {v} (registered to the studio account)",
        "ISteamUser/GetPlayerSummaries works when called with key={v}&steamids=... -- don't commit it",
        "# .env for matchmaking-svc\nSTEAM_WEB_API_KEY={v}\nSTEAM_APPID=1843770",
    )
    add(
        S,
        "steam_publisher_key",
        lambda: HX(32),
        "partner.steam-api.com needs the publisher Web API key, not the user one. ours: {v}",
        "Publisher key (Steamworks > Users & Permissions > Manage Groups) -> {v}; used by the IAP microservice for ISteamMicroTxn",
        "CI secret STEAM_PUBLISHER_KEY was set to {v} on the release runner",
    )
    add(
        S,
        "steam_partner_password",
        pw,
        "steamcmd build account: studio_builder / {v} (Steam Guard codes go to the builds@ mailbox)",
        "To upload depots run: steamcmd +login studio_builder {v} +run_app_build ../scripts/app_build_1843770.vdf +quit",
        "Steamworks partner login for Maya: maya.k@studio / {v}",
    )
    add(
        S,
        "steam_gslt",
        lambda: HX(32),
        "Dedicated server GSLT (appid 730 token for EU-1): +sv_setsteamaccount {v}",
        "game server login token for the Frankfurt box is {v}, each server needs its own one",
        'server.cfg\nsv_setsteamaccount "{v}"\nhostname "Studio Playtest #2"',
    )
    add(
        S,
        "steam_app_ticket_key",
        lambda: hx(64),
        "Encrypted app ticket key from Steamworks SDK Auth page: {v} -- backend uses it to decrypt tickets",
        'STEAM_ENCRYPTED_TICKET_KEY = "{v}"  # SteamEncryptedAppTicket_BDecryptTicket',
    )
    add(
        S,
        "eos_client_secret",
        lambda: an(43, AN + "+/"),
        "EOS dev portal > Product settings > Clients: ServerClient secret = {v}",
        "[EpicOnlineServices]\nClientId=xyza7891" + "QmFzZTY0" + "\nClientSecret={v}",
        "The EOS trusted server client secret is {v}; regenerate if anyone outside backend sees it",
    )
    add(
        S,
        "eos_basic_auth",
        lambda: b64(60),
        "curl -X POST https://api.epicgames.dev/auth/v1/oauth/token -H 'Authorization: Basic {v}' -d grant_type=client_credentials",
        "EOS token request header I used in postman -> Basic {v}",
    )
    add(
        S,
        "eos_encryption_key",
        lambda: hx(64),
        "EOS_Platform_Options.EncryptionKey for PlayerDataStorage in prod: {v}",
        "Title storage encryption key (64 hex, EOS): {v} -- losing it means we can't read old saves",
    )
    add(
        S,
        "playfab_secret_key",
        lambda: an(52, string.ascii_uppercase + string.digits),
        "PlayFab title 4A2F1 developer secret key: {v}",
        "X-SecretKey: {v}\n(needed for Server/GrantItemsToUser, never ship in client)",
        "PLAYFAB_DEV_SECRET_KEY={v}  # Azure function CloudScript runner",
    )
    add(
        S,
        "playfab_entity_token",
        lambda: b64u(150),
        "entity token for the title (valid 24h) -> X-EntityToken: {v}",
        "got a playfab EntityToken from GetEntityToken: {v}",
    )
    add(
        S,
        "unity_cloud_build_key",
        lambda: hx(32),
        "Unity Cloud Build API key (org studio-games): {v}",
        'curl -H "Authorization: Basic $(echo -n {v}: | base64)" https://build-api.cloud.unity3d.com/api/v1/orgs',
    )
    add(
        S,
        "unity_service_account",
        lambda: an(32, AN + "-_"),
        "Unity Gaming Services service account 'ci-deploy'\nkey id: "
        + uuid()
        + "\nsecret key: {v}",
        "UGS CLI: ugs config set ... then UGS_CLI_SERVICE_SECRET_KEY={v} in the pipeline vars",
        "Remote Config admin API works with the service account secret {v} (key id in the wiki)",
    )
    add(
        S,
        "devkit_password",
        pw,
        "Xbox devkit XDK-07 Device Portal login: admin / {v}",
        "PS5 devkit #3 in lab B -- Target Manager admin password is {v}",
        "Switch dev unit (SDEV) network settings password: {v}. Ask Tomas before changing.",
    )
    add(
        S,
        "xbox_partner_client_secret",
        lambda: an(3) + r.choice("0123456789") + "Q~" + an(34, AN + "_.-"),
        "Partner Center AAD app for XBL services: client secret {v} (expires 2027-06)",
        "XBL_CLIENT_SECRET={v}\nXBL_TENANT_ID=" + uuid(),
    )
    add(
        S,
        "photon_custom_auth_secret",
        lambda: b64u(24),
        "Photon custom auth webhook checks a shared secret query param: ?secret={v}",
        "Photon Server PhotonServer.config: <SharedKey>{v}</SharedKey> for the master<->game server link",
    )
    add(
        S,
        "mirror_server_password",
        pw,
        "Mirror BasicAuthenticator on the test server: serverUsername=qa, serverPassword={v}",
        "NetworkManager BasicAuthenticator password for playtest build = {v}",
    )
    add(
        S,
        "rcon_password",
        pw,
        'rcon_password "{v}"  // server.cfg on eu-fra-02',
        "ARK cluster admin: ServerAdminPassword={v} in GameUserSettings.ini",
        "Minecraft event server rcon.password={v}, port 25575",
    )
    add(
        S,
        "apple_p8_key",
        lambda: pem("PRIVATE KEY", 138),
        "App Store Connect API key AuthKey_7QX2M4P9LA.p8 (used for Game Center leaderboards admin):\n{v}",
        "Game Center server-to-server signing key for the backend:\n{v}",
    )
    add(
        S,
        "apple_iap_shared_secret",
        lambda: hx(32),
        "App-specific shared secret for verifyReceipt (auto-renew subs): {v}",
        "APPLE_IAP_SHARED_SECRET={v} -- generated in App Store Connect > App Information",
    )
    add(
        S,
        "anticheat_server_key",
        lambda: b64(48),
        "EasyAntiCheat server integration key for prod: {v}",
        'anticheat backend HMAC key (server side only): ac_server_key = "{v}"',
        "BattlEye RCon password on the live servers is {v}",
    )
    add(
        S,
        "leaderboard_hmac_key",
        lambda: hx(64),
        "score submissions are signed with HMAC-SHA256, server key {v}",
        "LEADERBOARD_SIGNING_SECRET={v}",
    )
    add(
        S,
        "discord_bot_token",
        lambda: b64u(18)[:24] + "." + an(6, AN + "-_") + "." + an(38, AN + "-_"),
        "community Discord bot (patch notes poster) token: {v}",
        "DISCORD_TOKEN={v}\nGUILD_ID=" + str(r.randint(10**17, 10**18)),
    )
    add(
        S,
        "itch_butler_key",
        lambda: an(40),
        "butler push uses BUTLER_API_KEY={v} on the CI runner",
        "itch.io API key for uploads -> {v}",
    )
    add(
        S,
        "nakama_encryption_key",
        lambda: an(32),
        'nakama.yml\nsession:\n  encryption_key: "{v}"\n  token_expiry_sec: 7200',
        "Nakama runtime http_key changed to {v} (old default removed)",
    )
    add(
        S,
        "game_backend_jwt_secret",
        lambda: b64(48),
        "JWT_SECRET for the lobby service = {v}",
        "player session tokens are HS256 signed with {v} (config/prod.toml)",
    )
    # ------------------------------------------------------------------ secrets: IoT
    add(
        S,
        "aws_iot_private_key",
        lambda: pem("RSA PRIVATE KEY", 600),
        "thing sensor-gw-014 private.pem.key:\n{v}",
        'paste into certs/device_key.h (AWS IoT):\nstatic const char AWS_KEY[] = R"KEY(\n{v}\n)KEY";',
        "ESP32 fleet provisioning claim key (shared by every unit, rotate!):\n{v}",
    )
    add(
        S,
        "aws_iot_access_key",
        lambda: an(40, AN + "/+"),
        "IoT provisioning lambda IAM user: AKIA"
        + an(16, string.ascii_uppercase + "234567")
        + " / {v}",
        "aws_secret_access_key = {v}\n(profile iot-factory, used by the jig to register certs)",
    )
    add(
        S,
        "mqtt_url_password",
        pw,
        "broker: mqtts://gw_ingest:{v}@mqtt.plant3.local:8883",
        "Node uses MQTT_URL=mqtt://telemetry:{v}@10.20.0.5:1883",
        "mosquitto_sub -h broker.lab -u fw-test -P '{v}' -t 'lab/#' -v",
    )
    add(
        S,
        "mqtt_config_password",
        pw,
        'esphome secrets.yaml\nmqtt_user: esp\nmqtt_password: "{v}"',
        "zigbee2mqtt configuration.yaml\nmqtt:\n  server: mqtt://homeassistant.local\n  user: z2m\n  password: {v}",
        '#define MQTT_USER "boiler"\n#define MQTT_PASS "{v}"',
    )
    add(
        S,
        "lorawan_appkey",
        lambda: HX(32),
        "TTN end device soil-17 OTAA: DevEUI 70B3D57ED005" + HX(4) + ", AppKey {v}",
        "LMIC sketch: APPKEY in msb order is {v} (convert to the byte array by hand)",
        "appkey for the new RAK3172 batch = {v} (same for all 40, yes I know)",
    )
    add(
        S,
        "lorawan_nwkskey",
        lambda: HX(32),
        "ABP mode for the rain gauge: DevAddr 260B" + HX(4) + " NwkSKey {v}",
        "AT+NWKSKEY={v}",
    )
    add(
        S,
        "lorawan_appskey",
        lambda: HX(32),
        "AppSKey (ABP, node 4) {v} -- payloads decrypt with this",
        "AT+APPSKEY={v}\nAT+JOIN",
    )
    add(
        S,
        "ttn_api_key",
        lambda: "NNSXS." + an(39, B32) + "." + an(52, B32),
        "TTN v3 API key for the webhook/integration: {v}",
        "ttn-lw-cli login --api-key {v}",
        "Authorization: Bearer {v}  (The Things Stack, eu1)",
    )
    add(
        S,
        "chirpstack_api_token",
        lambda: jwt({"aud": "chirpstack", "iss": "chirpstack", "sub": uuid(), "typ": "key"}),
        "ChirpStack v4 API token for the uplink exporter:\n{v}",
        "CHIRPSTACK_API_TOKEN={v}",
    )
    add(
        S,
        "particle_access_token",
        lambda: hx(40),
        "particle access token (never expires, created for the flasher): {v}",
        'curl https://api.particle.io/v1/devices -H "Authorization: Bearer {v}"',
        "PARTICLE_TOKEN={v}",
    )
    add(
        S,
        "blynk_auth_token",
        lambda: an(32, AN + "_-"),
        '#define BLYNK_TEMPLATE_ID "TMPL4' + an(7) + '"\n#define BLYNK_AUTH_TOKEN "{v}"',
        "Blynk device 'greenhouse' auth token {v}",
        "https://blynk.cloud/external/api/update?token={v}&V1=42",
    )
    add(
        S,
        "thingsboard_access_token",
        lambda: an(20),
        "ThingsBoard device credentials (ACCESS_TOKEN): {v}",
        "curl -v -X POST http://tb.local:8080/api/v1/{v}/telemetry --header Content-Type:application/json",
        'mosquitto_pub -h tb.local -t v1/devices/me/telemetry -u "{v}" -m \'{"temp":21}\'',
    )
    add(
        S,
        "ha_long_lived_token",
        lambda: jwt({"iss": hx(32), "iat": 1764000000 + r.randint(0, 9999999), "exp": 2079000000}),
        "Home Assistant long-lived access token (profile > security) for the grafana bridge:\n{v}",
        "HASS_TOKEN={v}",
        "rest_command auth header -> Authorization: Bearer {v}",
    )
    add(
        S,
        "ota_signing_key",
        lambda: pem("EC PRIVATE KEY", 121),
        "secure_boot_signing_key.pem (espsecure generated, prod):\n{v}",
        "OTA image signing key -- MCUboot root-ec-p256.pem:\n{v}",
    )
    add(
        S,
        "arduino_ota_password",
        pw,
        'ArduinoOTA.setPassword("{v}");',
        'ota:\n  - platform: esphome\n    password: "{v}"',
        "platformio.ini upload_flags = --auth={v}",
    )
    add(
        S,
        "esphome_api_key",
        lambda: b64(32),
        'api:\n  encryption:\n    key: "{v}"',
        "noise psk for the garage ESP node: {v}",
    )
    add(
        S,
        "serial_root_password",
        pw,
        "UART console on the gateway (115200 8N1): login root / {v}",
        "serial console root password for the RevB boards is {v} -- changed from the vendor default",
        'buildroot: BR2_TARGET_GENERIC_ROOT_PASSWD="{v}"',
    )
    add(
        S,
        "uboot_bootstop_key",
        pw,
        'U-Boot autoboot is locked: CONFIG_AUTOBOOT_STOP_STR="{v}"',
        "fw_setenv bootstopkey {v}   (type it within 3s to get the => prompt)",
    )
    add(
        S,
        "wpa_supplicant_psk",
        pw,
        'wpa_supplicant.conf\nnetwork={\n    ssid="FactoryFloor-IoT"\n    psk="{v}"\n}',
        "nmcli dev wifi connect Lab-5G password '{v}'",
        "Pi image: wifi PSK for 'BoothWifi' is {v}",
    )
    add(
        S,
        "sdkconfig_wifi_password",
        pw,
        'sdkconfig.defaults\nCONFIG_ESP_WIFI_SSID="warehouse-iot"\nCONFIG_ESP_WIFI_PASSWORD="{v}"',
        'CONFIG_EXAMPLE_WIFI_PASSWORD="{v}" accidentally ended up in the release sdkconfig',
    )
    add(
        S,
        "wifi_secrets_header",
        pw,
        'arduino_secrets.h\n#define SECRET_SSID "Barn"\n#define SECRET_PASS "{v}"',
        'const char* password = "{v}";  // home wifi',
    )
    add(
        S,
        "esp_prov_pop",
        lambda: an(12),
        "BLE provisioning proof-of-possession for the Q4 units: {v}",
        "esp-idf-provisioning: --sec_ver 1 --pop {v}",
    )
    add(
        S,
        "azure_iot_sas_key",
        lambda: b64(32),
        "HostName=plant-hub.azure-devices.net;DeviceId=press-07;SharedAccessKey={v}",
        "IoT Hub iothubowner primary key: {v}",
    )
    add(
        S,
        "balena_api_key",
        lambda: an(32),
        "balena CLI key for the fleet deploy job: {v}",
        "BALENA_API_KEY={v}",
    )
    add(
        S,
        "golioth_psk",
        lambda: an(24),
        "Golioth device PSK-ID devkit-3@proj-xyz, PSK {v}",
        'CONFIG_GOLIOTH_SAMPLE_PSK="{v}"',
    )
    add(
        S,
        "tuya_local_key",
        lambda: an(16, AN + "!@#$%^&*()<>'"),
        "tinytuya local key for the hallway plug: {v}",
        'devices.json: {"name": "Desk lamp", "key": "{v}"}',
    )
    add(
        S,
        "zigbee_network_key",
        lambda: "[" + ", ".join(str(r.randint(0, 255)) for _ in range(16)) + "]",
        "z2m advanced:\n  network_key: {v}",
        "backup: zigbee network_key is {v}, needed if we re-pair the coordinator",
    )
    add(
        S,
        "zwave_s2_key",
        lambda: HX(32),
        "zwave-js S2_Unauthenticated key {v}",
        "Z-Wave JS UI security keys -> S0_Legacy: {v}",
    )
    add(
        S,
        "nodered_credential_secret",
        lambda: an(28),
        'settings.js credentialSecret: "{v}"',
        "NODE_RED_CREDENTIAL_SECRET={v}",
    )
    add(
        S,
        "influx_token",
        lambda: b64u(64) + "==",
        "InfluxDB token for the telemetry writer: {v}",
        '[[outputs.influxdb_v2]]\n  urls = ["http://influx:8086"]\n  token = "{v}"',
    )
    add(
        S,
        "adafruit_io_key",
        lambda: "aio_" + an(28),
        '#define IO_USERNAME "barnlab"\n#define IO_KEY "{v}"',
        "Adafruit IO key rotated, new one {v}",
    )
    add(
        S,
        "arduino_cloud_secret",
        lambda: an(64),
        "Arduino IoT Cloud API client secret: {v}",
        'SECRET_DEVICE_KEY "{v}"  // ESP32 on Arduino Cloud',
    )
    add(
        S,
        "gateway_ssh_private_key",
        lambda: pem("OPENSSH PRIVATE KEY", 300),
        "field gateway deploy key (~/.ssh/gw_fleet):\n{v}",
    )
    add(
        S,
        "gateway_admin_password",
        pw,
        "Milesight UG65 web UI admin / {v}",
        "the RUT955 router in cabinet 2 now uses {v} for the admin page",
    )
    add(
        S,
        "mender_device_token",
        lambda: jwt({"sub": uuid(), "mender.device": True, "mender.tenant": hx(24)}, "RS256"),
        "Mender auth token copied from device press-07 (/data/mender):\n{v}",
    )
    add(
        S,
        "flash_encryption_key",
        lambda: hx(64),
        "host-generated flash encryption key for the dev batch (espsecure generate_flash_encryption_key), hex: {v}",
        "keys/flash_enc_key.bin as hex -> {v}",
    )
    add(
        S,
        "matter_wifi_psk_nvs",
        pw,
        "nvs_partition.csv\nwifi,namespace,\nssid,data,string,Factory-Test\npass,data,string,{v}",
    )

    # ------------------------------------------------------------------ benign
    add(
        B,
        "steam_appid",
        lambda: str(r.randint(1000000, 3200000)),
        "Steam appid for the demo is {v}, main game is a different one",
        "steam_appid.txt contains {v} (needed next to the exe for local runs)",
        "Store page: https://store.steampowered.com/app/{v}/",
    )
    add(
        B,
        "steam_id64",
        lambda: "7656119" + str(r.randint(8 * 10**9, 9 * 10**9)),
        "Ban appeal from SteamID64 {v}, checked the logs, no cheat flags",
        "whitelist tester steamid {v}",
    )
    add(
        B,
        "steam_depot_manifest",
        lambda: str(r.randint(10**18, 9 * 10**18)),
        "Rolled back depot 1843771 to manifest {v}",
        "download_depot 1843770 1843771 {v} for bisecting the crash",
    )
    add(
        B,
        "steam_build_id",
        lambda: str(r.randint(14000000, 17000000)),
        "BuildID {v} set live on default branch at 18:02 UTC",
        "Build {v} uploaded to beta branch 'qa'; password-protected branch, password in 1Password",
    )
    add(
        B,
        "steam_key_placeholder",
        lambda: "X" * 32,
        "STEAM_WEB_API_KEY={v}  # replace locally, real one is in Vault",
        "Docs example: GetNumberOfCurrentPlayers?key={v}&appid=440",
    )
    add(
        B,
        "steam_key_vault_ref",
        lambda: "vault:secret/data/steam/webapi#key",
        "steam web api key lives at {v}, the backend reads it at boot",
        "Don't paste the publisher key into tickets; reference {v} instead",
    )
    add(
        B,
        "eos_product_ids",
        lambda: hx(32),
        "EOS ProductId {v} (not secret, ships in the client ini)",
        "EOS SandboxId for Live: {v}",
        "DeploymentId={v}  # from dev portal, public identifier",
    )
    add(
        B,
        "eos_client_id",
        lambda: "xyza7891" + an(24),
        "EOS GameClient ClientId is {v} -- the client policy has no secret, it's a public client",
        "ClientId={v}\nClientSecret=${EOS_CLIENT_SECRET}",
    )
    add(
        B,
        "playfab_title_id",
        lambda: HX(5),
        "PlayFab TitleId {v} (dev), prod title is separate",
        'PlayFabSettings.staticSettings.TitleId = "{v}";',
    )
    add(
        B,
        "playfab_key_redacted",
        lambda: HX(6) + "*" * 20,
        "rotated the PlayFab secret key, new value stored in Key Vault; old key ({v}) deleted in Game Manager",
        "log shows X-SecretKey: {v} -- SDK masks it, good",
    )
    add(
        B,
        "unity_project_guid",
        uuid,
        "Unity cloud projectId {v} (ProjectSettings.asset cloudProjectId)",
        "UGS environment id for 'production' is {v}",
    )
    add(
        B,
        "unity_meta_guid",
        lambda: hx(32),
        "PlayerPrefab.prefab.meta guid: {v} -- prefab reference broke after the rename",
        "fileID: 11400000, guid: {v}, type: 2",
    )
    add(
        B,
        "asset_bundle_hash",
        lambda: hx(32),
        "AssetBundle manifest: characters_hd Hash: {v}",
        "CRC 2384712099, Hash128 {v} for env_forest bundle",
    )
    add(
        B,
        "save_checksum",
        lambda: hx(64),
        "save slot 2 checksum mismatch: expected sha256 {v}",
        "SaveGame v7 header stores crc32 " + hx(8) + " plus sha256 {v} of the payload",
    )
    add(
        B,
        "photon_app_id",
        uuid,
        "PhotonServerSettings AppIdRealtime = {v} (ships in the build, it's not a secret)",
        "Photon AppId for the voice module: {v}",
    )
    add(
        B,
        "apple_key_id",
        lambda: an(10, string.ascii_uppercase + string.digits),
        "App Store Connect API key id {v}, the .p8 itself is in the team vault",
        "Team ID {v} for the Game Center entitlement",
    )
    add(
        B,
        "game_center_leaderboard",
        lambda: "grp.com.studio.rift." + an(8).lower(),
        "Game Center leaderboard id {v}",
        "achievement identifier {v} not unlocking on iOS 18",
    )
    add(
        B,
        "anticheat_public_key",
        lambda: pem("PUBLIC KEY", 294),
        "anti-cheat client verifies server messages with this public key:\n{v}",
    )
    add(
        B,
        "discord_public_key",
        lambda: hx(64),
        "Discord application public key (interactions signature verify): {v}",
        "DISCORD_PUBLIC_KEY={v}\nDISCORD_APP_ID=" + str(r.randint(10**17, 10**18)),
    )
    add(
        B,
        "dev_eui",
        lambda: "70B3D57ED0" + HX(6),
        "DevEUI {v} is on the label under the battery",
        "lorawan node 12 dev_eui={v}",
        "joined: DevEUI {v} DevAddr 260B" + HX(4),
    )
    add(B, "join_eui", lambda: HX(16), "JoinEUI (AppEUI) for all nodes: {v}", "AT+APPEUI={v}")
    add(
        B,
        "dev_addr",
        lambda: "260B" + HX(4),
        "uplink from DevAddr {v} fCnt 113 SF9",
        "DevAddr {v} keeps rejoining every hour",
    )
    add(
        B,
        "lorawan_doc_example",
        lambda: "00000000000000000000000000000000",
        "TTN docs example AppKey {v} -- placeholder, generate your own in the console",
        '#define APPKEY "{v}" // TODO: fill per device',
    )
    add(
        B,
        "mac_address",
        mac,
        "ESP32 base MAC {v} (from efuse)",
        "dhcp reservation for the gateway: {v} -> 10.20.0.17",
        "ethaddr={v}",
    )
    add(
        B,
        "firmware_sha256",
        lambda: hx(64),
        "fw 2.4.1 image sha256 {v}",
        'OTA manifest: {"version": "3.0.2", "sha256": "{v}"}',
        "shasum -a 256 build/gateway.bin -> {v}",
    )
    add(
        B,
        "ota_public_key",
        lambda: pem("PUBLIC KEY", 91),
        "OTA verification public key baked into the bootloader:\n{v}",
        "mcuboot pubkey (imgtool getpub) for reference:\n{v}",
    )
    add(
        B,
        "aws_iot_certificate",
        lambda: pem("CERTIFICATE", 700),
        "device certificate for sensor-gw-014 (public part only, key stays in the ATECC608):\n{v}",
        "AmazonRootCA1.pem:\n{v}",
    )
    add(
        B,
        "aws_iot_cert_id",
        lambda: hx(64),
        "AWS IoT certificateId {v} attached to thing press-07",
        "arn:aws:iot:eu-west-1:" + str(r.randint(10**11, 10**12)) + ":cert/{v}",
    )
    add(
        B,
        "aws_doc_example_key",
        lambda: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS docs example secret {v} -- do not use, just showing the format",
        "aws configure example from the README: AKIAIOSFODNN7EXAMPLE / {v}",
    )
    add(
        B,
        "mqtt_topic",
        lambda: "plant3/line2/press-" + str(r.randint(1, 99)) + "/telemetry/" + hx(8),
        "subscribe to {v} for raw readings",
        "topic {v} has retained messages, clear them with an empty payload",
    )
    add(
        B,
        "ha_secret_reference",
        lambda: "!secret ha_bridge_token",
        "configuration.yaml\nrest:\n  - resource: http://ha.local/api/states\n    headers:\n      Authorization: {v}",
        "moved the long-lived token out of the yaml; it now says {v}",
    )
    add(
        B,
        "esphome_secret_ref",
        lambda: "!secret wifi_password",
        "wifi:\n  ssid: !secret wifi_ssid\n  password: {v}",
        "all ESP nodes use {v} now, nothing inline",
    )
    add(
        B,
        "particle_device_id",
        lambda: hx(24),
        "Particle device id {v} (Boron in the pump house)",
        "particle flash {v} firmware.bin",
    )
    add(
        B,
        "blynk_template_id",
        lambda: "TMPL" + an(8),
        '#define BLYNK_TEMPLATE_ID "{v}"\n#define BLYNK_TEMPLATE_NAME "Greenhouse"',
        "template id {v} is shared by all greenhouse devices, it's fine in git",
    )
    add(
        B,
        "thingsboard_device_id",
        uuid,
        "ThingsBoard deviceId {v} (entity id, not the access token)",
        "GET /api/device/{v}/credentials returns the token, needs tenant admin JWT",
    )
    add(
        B,
        "vapid_public_key",
        lambda: "B" + b64u(64)[:86],
        "Web push VAPID public key (applicationServerKey) for the dashboard: {v}",
        "VAPID_PUBLIC_KEY={v}\nVAPID_PRIVATE_KEY is in the server secret store",
    )
    add(
        B,
        "uboot_env_public",
        lambda: "0x" + hx(8),
        "U-Boot env: bootcmd=run mmcboot; loadaddr={v}; bootdelay=0",
        "fw_printenv shows kernel_addr_r={v} fdt_high=0xffffffff",
    )
    add(
        B,
        "serial_number",
        lambda: "GW" + str(r.randint(2024, 2026)) + "-" + HX(10),
        "RMA for gateway SN {v}, bad eMMC",
        "serial {v} printed on the box and in /proc/device-tree/serial-number",
    )
    add(
        B,
        "imei_iccid",
        lambda: "8944" + str(r.randint(10**15, 10**16 - 1)),
        "SIM ICCID {v} in the Boron, Hologram account",
        "modem ICCID {v}, IMEI " + str(r.randint(10**14, 10**15 - 1)),
    )
    add(
        B,
        "git_commit_sha",
        lambda: hx(40),
        "firmware built from commit {v}",
        "bisect says {v} broke the BLE reconnect",
    )
    add(
        B,
        "image_digest",
        lambda: "sha256:" + hx(64),
        "gameserver image pinned to ghcr.io/studio/rift-server@{v}",
        "balena release digest {v}",
    )
    add(
        B,
        "wifi_ssid_only",
        lambda: "IoT-Lab-" + HX(4),
        "devices join SSID {v}; the PSK is handed out by the provisioning app, not stored here",
        "SSID {v} is 2.4 GHz only",
    )
    add(
        B,
        "wifi_placeholder",
        lambda: "<your-wifi-password>",
        '#define WIFI_SSID "<your-ssid>"\n#define WIFI_PASS "{v}"',
        'CONFIG_ESP_WIFI_PASSWORD="{v}"  # set via menuconfig, never commit',
    )
    add(
        B,
        "secure_boot_digest",
        lambda: hx(64),
        "secure boot v2 public key digest burned to BLOCK_KEY0: {v}",
        "espsecure digest_sbv2_public_key -> {v}",
    )
    add(
        B,
        "efuse_status_note",
        lambda: "= ?? ?? ?? ?? R/-",
        "espefuse summary: BLOCK_KEY1 (XTS_AES_128_KEY) {v} -- read protected, as intended",
        "flash encryption key block reads {v}, so the key is not readable from the chip",
    )
    add(
        B,
        "zigbee_pan_ids",
        lambda: "0x" + hx(16),
        "z2m advanced: pan_id: 6754, ext_pan_id: {v}",
        "extended PAN ID {v} after the coordinator migration",
    )
    add(
        B,
        "zwave_home_id",
        lambda: "0x" + hx(8),
        "Z-Wave home id {v}, node 14 is the lock",
        "controller homeId {v}",
    )
    add(
        B,
        "tuya_device_id",
        lambda: "bf" + an(20, string.ascii_lowercase + string.digits),
        "tinytuya scan found gwId {v} at 192.168.1.44 (version 3.3)",
        "Tuya devId {v} -- the local key is fetched from the cloud wizard at setup, not kept",
    )
    add(
        B,
        "revoked_key_note",
        lambda: HX(32),
        "Steam web API key {v} was revoked on 2026-11-02 after the leak and returns 403 now; the replacement is in Vault",
        "Revoked (and confirmed dead): old GSLT {v}",
    )
    add(
        B,
        "console_title_ids",
        lambda: "0100" + HX(12),
        "Switch title id {v} for the NA release",
        "Nintendo application id {v}, patch v3 submitted",
    )
    add(
        B,
        "unity_iap_public_key",
        lambda: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64(180),
        "Google Play license public key for Unity IAP receipt validation (public, from Play Console): {v}",
    )
    add(
        B,
        "apple_issuer_id",
        uuid,
        "App Store Connect issuer id {v}",
        "ASC_ISSUER_ID={v}\nASC_KEY_PATH=/run/secrets/asc_key.p8",
    )
    add(
        B,
        "ttn_key_id",
        lambda: an(39, B32),
        "TTN key ID {v} (only the id shown in the console list, the secret part is not recoverable)",
        "deleted TTN API key with id {v}",
    )
    add(
        B,
        "build_number",
        lambda: "1.8." + str(r.randint(0, 30)) + "+" + str(r.randint(1000, 99999)),
        "client version {v} rejected by the server min-version check",
        "CFBundleVersion {v} submitted for review",
    )
    add(
        B,
        "password_policy_talk",
        lambda: "",
        "decided: serial console root password is unique per unit and derived at factory; nothing stored in the repo",
        "the dev-kit passwords were changed after the audit, ask IT for them",
        "Reminder: MQTT password comes from the provisioning service at first boot",
    )
    add(
        B,
        "uuid_session_id_log",
        uuid,
        "match {v} ended with desync at tick 9120",
        "crash report id {v} (Backtrace)",
    )
    add(
        B,
        "rcon_disabled_note",
        lambda: '""',
        "rcon_password {v}  // rcon disabled on public servers",
        "ServerAdminPassword={v} left empty, admin is via the panel",
    )
    add(
        B,
        "crc_table_constant",
        lambda: "0x" + hx(8).upper(),
        "CRC32 polynomial for save files is 0xEDB88320; init value {v}",
        "FNV offset basis used for asset ids: {v}",
    )
    add(
        B,
        "game_seed",
        lambda: str(r.randint(10**9, 10**10)),
        "world seed {v} reproduces the cave spawn bug",
        "daily challenge seed for 2026-12-07 = {v}",
    )
    add(
        B,
        "matter_vendor_product",
        lambda: "0x" + HX(4),
        "Matter VID 0xFFF1 (test vendor), PID {v}",
        "CHIP product id {v} in the DAC",
    )
    add(
        B,
        "key_rotation_ticket",
        lambda: "SEC-" + str(r.randint(100, 9999)),
        "{v}: rotate PlayFab secret key and Blynk tokens, owner: backend",
        "tracking the LoRaWAN AppKey re-provisioning in {v}",
    )
    add(
        B,
        "lfs_oid",
        lambda: hx(64),
        "version https://git-lfs.github.com/spec/v1\noid sha256:{v}\nsize 48213399",
        "git lfs pointer for Audio/music_main.wem -> {v}",
    )
    add(
        B,
        "addressables_hash",
        lambda: hx(32),
        "catalog_2026.12.07.hash contains {v}",
        "Addressables remote catalog hash {v} didn't change so clients skip the update",
    )
    add(
        B,
        "shadow_document",
        lambda: hx(8),
        'AWS IoT shadow for press-07: {"state":{"reported":{"fw":"2.4.1","cfg":"' + "{v}" + '"}}}',
        "shadow version 412, clientToken {v}",
    )
    add(
        B,
        "jwt_public_header",
        lambda: "eyJhbGciOiJFUzI1NiIsImtpZCI6IjdRWDJNNFA5TEEiLCJ0eXAiOiJKV1QifQ",
        "ASC JWT header decodes fine: {v} (header only, no payload/signature)",
    )
    add(
        B,
        "env_var_names",
        lambda: "PLAYFAB_DEV_SECRET_KEY",
        "required env vars: {v}, STEAM_WEB_API_KEY, EOS_CLIENT_SECRET (values from Vault)",
        "if {v} is missing the server falls back to read-only mode",
    )

    # ------------------------------------------------------------------ more secrets
    add(
        S,
        "steam_web_api_key",
        lambda: HX(32),
        "note to self: the key I registered on steamcommunity.com/dev/apikey for the discord bot is {v}",
    )
    add(
        S,
        "playfab_secret_key",
        lambda: an(52, string.ascii_uppercase + string.digits),
        "Game Manager > Title settings > Secret Keys: 'ci-2026' = {v} (no expiry)",
    )
    add(S, "eos_client_secret", lambda: an(43, AN + "+/"), "EOS_CLIENT_SECRET: {v}")
    add(S, "devkit_password", pw, "Xbox Dev Home remote access: user devhome, pwd {v}")
    add(S, "mqtt_url_password", pw, "HiveMQ Cloud cluster creds -- user: iot_dash, password: {v}")
    add(
        S,
        "mqtt_config_password",
        pw,
        "mosquitto passwd file was built with: mosquitto_passwd -b /etc/mosquitto/passwd sensor01 {v}",
    )
    add(S, "lorawan_appkey", lambda: HX(32), "AT+APPKEY={v}\nAT+NJM=1")
    add(
        S,
        "ha_long_lived_token",
        lambda: jwt({"iss": hx(32), "iat": 1765000000 + r.randint(0, 999999), "exp": 2080000000}),
        "homeassistant token for the wall tablet (fully kiosk): {v}",
    )
    add(S, "particle_access_token", lambda: hx(40), "particle login --token {v}")
    add(
        S,
        "thingsboard_access_token",
        lambda: an(20),
        'TB_DEVICE_TOKEN = "{v}"  # pump house, MQTT username is the token',
    )
    add(
        S,
        "aws_iot_private_key",
        lambda: pem("EC PRIVATE KEY", 121),
        "Greengrass core device key (ec p-256):\n{v}",
    )
    add(
        S, "wpa_supplicant_psk", lambda: hx(64), "wpa_passphrase output for SSID Plant3-OT: psk={v}"
    )
    add(
        S,
        "serial_root_password",
        pw,
        'yocto local.conf: EXTRA_USERS_PARAMS = "usermod -P {v} root;"',
    )
    add(
        S,
        "ota_signing_key",
        lambda: pem("PRIVATE KEY", 48),
        "ed25519 key that signs the SWUpdate .swu images:\n{v}",
    )
    add(S, "unity_cloud_build_key", lambda: hx(32), "UCB_API_KEY={v}")
    add(S, "rcon_password", pw, 'Valheim dedicated: -password "{v}" -public 0')
    add(
        S,
        "blynk_auth_token",
        lambda: an(32, AN + "_-"),
        "Blynk.begin(BLYNK_AUTH_TOKEN, ssid, pass); where the token = {v}",
    )
    add(S, "influx_token", lambda: b64u(64) + "==", "influx config create --token {v} --org plant3")
    add(
        S,
        "steam_gslt",
        lambda: HX(32),
        "GSLT for the community server (account 'rift-servers'): {v}",
    )
    add(
        S,
        "azure_iot_sas_key",
        lambda: b64(32),
        "az iot hub device-identity connection-string show -> ...;SharedAccessKey={v}",
    )

    add(
        S,
        "apple_iap_shared_secret",
        lambda: hx(32),
        'verifyReceipt body: {"receipt-data": "...", "password": "{v}"}',
    )
    add(
        S,
        "photon_custom_auth_secret",
        lambda: b64u(24),
        "PHOTON_WEBHOOK_SECRET={v}  # validates Photon webhooks on our side",
    )
    add(
        S,
        "lorawan_nwkskey",
        lambda: HX(32),
        'static const PROGMEM u1_t NWKSKEY_HEX[] = "{v}";  // node 9, ABP',
    )
    add(S, "golioth_psk", lambda: an(24), "golioth settings: psk-id thermostat-4@acme-iot psk {v}")
    add(
        S,
        "tuya_local_key",
        lambda: an(16, AN + "!@#$%^&*()<>'"),
        "LocalTuya integration for the aircon: device id bf" + an(20).lower() + ", local key {v}",
    )
    add(
        S,
        "discord_bot_token",
        lambda: b64u(18)[:24] + "." + an(6, AN + "-_") + "." + an(38, AN + "-_"),
        "server-status bot token (do NOT paste in #dev): {v}",
    )
    add(
        S,
        "esp_prov_pop",
        lambda: an(8, string.ascii_lowercase + string.digits),
        'the provisioning QR payload for unit 0042: {"ver":"v1","name":"PROV_0042","pop":"{v}","transport":"ble"}',
    )
    add(
        S,
        "gateway_admin_password",
        pw,
        "Teltonika TRB140 at the pump station: root / {v} (SSH and WebUI)",
    )

    # ------------------------------------------------------------------ more benign
    add(
        B,
        "steam_appid",
        lambda: str(r.randint(1000000, 3200000)),
        "SteamAPI_RestartAppIfNecessary({v}) fails on the dev box without steam running",
    )
    add(
        B,
        "steam_key_placeholder",
        lambda: "YOUR_STEAM_WEB_API_KEY",
        "example request from the wiki: ISteamNews/GetNewsForApp/v2/?appid=440&key={v}",
        'config.sample.json: {"steamApiKey": "{v}"}',
    )
    add(B, "eos_product_ids", lambda: hx(32), "EOS ArtifactId for the Epic Games Store build: {v}")
    add(
        B,
        "playfab_title_id",
        lambda: HX(5),
        "https://{v}.playfabapi.com/Client/LoginWithCustomID is the endpoint for dev",
    )
    add(
        B,
        "unity_meta_guid",
        lambda: hx(32),
        "Missing Prefab with guid: {v} -- someone deleted Assets/Props/Crate.prefab",
    )
    add(
        B,
        "asset_bundle_hash",
        lambda: hx(40),
        "texture import cache key {v} rebuilt after the compression change",
    )
    add(
        B,
        "save_checksum",
        lambda: hx(8),
        "save file footer crc32 {v} -- mismatched after the cloud sync conflict",
    )
    add(
        B,
        "photon_app_id",
        uuid,
        'PUN2: PhotonNetwork.PhotonServerSettings.AppSettings.AppIdChat = "{v}"',
    )
    add(
        B,
        "apple_key_id",
        lambda: an(10, string.ascii_uppercase + string.digits),
        "AuthKey_{v}.p8 is the filename; file is only on the build mac in the keychain",
    )
    add(
        B,
        "discord_public_key",
        lambda: hx(64),
        "verify X-Signature-Ed25519 with app public key {v}",
    )
    add(
        B,
        "dev_eui",
        lambda: "A84041" + HX(10),
        "Dragino LHT65 dev_eui {v} joined on the second try",
    )
    add(
        B,
        "join_eui",
        lambda: HX(16),
        "AppEUI/JoinEUI {v} -- identical on all the RAK units, that's expected",
    )
    add(
        B,
        "lorawan_doc_example",
        lambda: "2B7E151628AED2A6ABF7158809CF4F3C",
        "the LMIC sample uses the AES test vector {v} as NWKSKEY; obviously replace it",
    )
    add(B, "mac_address", mac, "wifi STA MAC {v}, AP MAC is +1")
    add(B, "firmware_sha256", lambda: hx(64), "release notes: gateway-3.1.0.swu sha256={v}")
    add(
        B,
        "aws_iot_cert_id",
        lambda: hx(64),
        "aws iot update-certificate --certificate-id {v} --new-status INACTIVE",
    )
    add(
        B,
        "aws_iot_certificate",
        lambda: pem("CERTIFICATE", 500),
        "Game Center / Apple WWDR intermediate cert we bundle:\n{v}",
    )
    add(
        B,
        "aws_doc_example_key",
        lambda: "AKIAIOSFODNN7EXAMPLE",
        "aws docs access key id {v} used in the IoT tutorial screenshots",
    )
    add(
        B,
        "mqtt_topic",
        lambda: "$aws/things/press-" + str(r.randint(1, 99)) + "/shadow/update/accepted",
        "listen on {v} to see shadow deltas",
    )
    add(
        B,
        "mqtt_topic",
        lambda: "homeassistant/sensor/" + hx(12) + "/config",
        "discovery topic {v} keeps creating duplicate entities",
    )
    add(
        B,
        "ha_secret_reference",
        lambda: "${{ secrets.HA_TOKEN }}",
        "github action passes token: {v} to the ha-config-check step",
    )
    add(B, "particle_device_id", lambda: hx(24), "particle call {v} reset")
    add(B, "thingsboard_device_id", uuid, "tb rule chain id {v} (root rule chain)")
    add(
        B,
        "vapid_public_key",
        lambda: "B" + b64u(64)[:86],
        "applicationServerKey: urlBase64ToUint8Array('{v}')",
    )
    add(
        B,
        "uboot_env_public",
        lambda: "console=ttymxc0,115200 root=/dev/mmcblk2p" + str(r.randint(2, 3)) + " rootwait ro",
        "setenv bootargs {v}",
    )
    add(
        B,
        "serial_number",
        lambda: "SN" + str(r.randint(10**9, 10**10)),
        "devkit serial {v} goes back to the platform holder on Friday",
    )
    add(B, "git_commit_sha", lambda: hx(7), "hotfix cherry-picked as {v} onto release/1.8")
    add(B, "image_digest", lambda: "sha256:" + hx(64), "docker pull eclipse-mosquitto@{v}")
    add(
        B,
        "wifi_placeholder",
        lambda: "CHANGE_ME",
        'wpa_supplicant.conf template:\nnetwork={\n    ssid="YOUR_SSID"\n    psk="{v}"\n}',
    )
    add(
        B,
        "wifi_placeholder",
        lambda: "********",
        "WiFiManager portal shows password {v} for the saved network",
    )
    add(B, "secure_boot_digest", lambda: hx(64), "MCUboot image TLV KEYHASH {v}")
    add(
        B,
        "zigbee_pan_ids",
        lambda: "[" + ", ".join(str(r.randint(0, 255)) for _ in range(8)) + "]",
        "z2m ext_pan_id: {v}  (network_key is GENERATE, not in this file)",
    )
    add(
        B,
        "tuya_device_id",
        lambda: "eb" + an(20, string.ascii_lowercase + string.digits),
        "productKey keyj" + an(12).lower() + " devId {v}",
    )
    add(
        B,
        "revoked_key_note",
        lambda: hx(40),
        "particle token {v} deleted with particle token revoke; confirmed 401 afterwards",
    )
    add(
        B,
        "console_title_ids",
        lambda: "CUSA" + str(r.randint(10000, 99999)),
        "PS4 title {v} passed cert",
    )
    add(
        B,
        "console_title_ids",
        lambda: HX(8),
        "Xbox titleId {v} (hex), SCID in the MicrosoftGame.config",
    )
    add(
        B,
        "ttn_key_id",
        lambda: an(39, B32),
        "audit log: api key {v} created by user lukas with rights RIGHT_APPLICATION_TRAFFIC_READ",
    )
    add(
        B,
        "build_number",
        lambda: str(r.randint(2026120700, 2026120799)),
        "versionCode {v} uploaded to the internal testing track",
    )
    add(
        B,
        "password_policy_talk",
        lambda: "",
        "we should stop putting the wifi PSK in sdkconfig; use NVS + BLE provisioning with a per-device POP",
        "HA long-lived tokens are revoked when someone leaves; checklist in Notion",
    )
    add(B, "uuid_session_id_log", uuid, "lobby {v} stuck in 'starting' state")
    add(B, "game_seed", lambda: hx(16), "procgen seed 0x{v} gives the broken river")
    add(B, "lfs_oid", lambda: hx(64), "LFS object {v} missing on the remote, reupload")
    add(B, "shadow_document", lambda: uuid(), "IoT jobs: jobId fw-upgrade-2026-12, executionId {v}")
    add(
        B,
        "env_var_names",
        lambda: "LORAWAN_APPKEY",
        "device firmware reads {v} from NVS at boot; left blank in the repo",
    )
    add(
        B,
        "hmac_algorithm_note",
        lambda: "HMAC-SHA256",
        "leaderboard signatures are {v} over (playerId|score|ts); key is per-env in Vault",
        "anti-cheat heartbeat uses {v}, the spec doc describes the fields",
    )
    add(
        B,
        "public_ssh_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(32)[:43] + " ops@gw-fleet",
        "authorized_keys on the gateways:\n{v}",
        "add this pubkey to the build agent: {v}",
    )
    add(
        B,
        "cert_fingerprint",
        lambda: ":".join(HX(2) for _ in range(32)),
        "broker cert SHA256 fingerprint {v} (pin this in the firmware)",
        "Game server TLS fingerprint {v}",
    )
    add(
        B,
        "coap_psk_identity",
        lambda: "dev-" + hx(12),
        "DTLS PSK identity {v} (the key itself is provisioned by the factory jig)",
    )

    assert all(row["value"] in row["text"] for row in rows)
    return rows


def main() -> None:
    lines = [json.dumps(row, ensure_ascii=False) + "\n" for row in corpus()]
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            out.writelines(lines)
    else:
        sys.stdout.writelines(lines)


if __name__ == "__main__":
    main()
