# ruff: noqa: E501
"""Blind secret-detector corpus 50: industrial and operational-technology engineers.

Brief: SCADA and HMI systems, PLC programming tools and project passwords, historians,
OPC UA and Modbus gateways, MQTT brokers, remote-access VPNs to plants, industrial routers
and cellular modems, robot controllers and ROS, firmware and OTA update signing,
building-management systems, vendor support logins, and the serial numbers, MAC addresses,
certificate thumbprints and tag names that look like secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_50.py [out.jsonl]   (JSONL to the path, or stdout without one)

Kinds, secret:
    scada_admin_password, hmi_runtime_password, plc_project_password,
    codesys_project_password, rslogix_source_key, historian_sql_password,
    pi_web_api_basic_auth, opcua_user_password, opcua_client_private_key,
    modbus_gateway_password, mqtt_broker_password, mqtt_url_credentials,
    device_private_key_ec, azure_iot_conn_string, azure_iot_sas_signature,
    wireguard_private_key, openvpn_static_key, ipsec_psk, talk2m_password,
    teamviewer_password, cellular_router_password, apn_password, snmp_write_community,
    snmpv3_auth_pass, robot_controller_password, rosbridge_secret, firmware_signing_key,
    gpg_signing_passphrase, mender_tenant_token, balena_api_key, niagara_admin_password,
    bms_web_password, vendor_portal_password, github_pat, aws_secret_access_key,
    influxdb_token, grafana_sa_token, node_red_credential_secret, ignition_gateway_password,
    kepware_admin_password, thingworx_app_key, slack_webhook, twilio_auth_token,
    pagerduty_routing_key, ssh_private_key, jump_host_password, rdp_password, vnc_password,
    postgres_url, redis_password, hmi_web_session_jwt, session_cookie, wifi_psk,
    ota_hmac_secret, flash_encryption_key, lorawan_appkey, code_signing_pfx_password,
    docker_registry_password, sendgrid_api_key, tailscale_auth_key, ngrok_authtoken,
    uboot_password, bacnet_sc_hub_key

Kinds, benign:
    device_serial_number, mac_address, cert_sha1_thumbprint, cert_sha256_fingerprint,
    opcua_node_id, plc_tag_password_name, plc_tag_key_name, historian_tag_token,
    mqtt_topic_secret_word, wireguard_public_key, ssh_public_key, ssh_host_fingerprint,
    git_commit_sha, firmware_sha256, ed25519_verify_key, device_uuid,
    azure_iot_hostname_only, aws_iot_endpoint, aws_docs_example_key, vault_reference,
    env_var_reference, redacted_password, placeholder_password, password_policy_talk,
    mosquitto_passwd_hash, keystore_path, sim_iccid, modem_imei, sim_imsi,
    historian_primary_key, opcua_security_policy, x509_certificate, certificate_request,
    public_key_pem, gpg_fingerprint, ci_build_id, bacnet_object, modbus_crc,
    s7_block_checksum, mqtt_client_id, aws_secret_arn, key_vault_uri, k8s_secret_ref,
    docker_digest, npm_integrity, tailscale_node_pubkey, base64_config_blob, correlation_id,
    ros_param_name, robot_program_checksum, profinet_station_name, change_ticket,
    lorawan_deveui, tpm_ek_hash, git_lfs_oid, grafana_dashboard_uid, node_red_node_id,
    wifi_ssid, know_how_statement, tls_session_ticket_talk, rsa_modulus_jwks,
    license_activation_id, hmi_screen_name, ota_manifest_version, signature_blob,
    token_word_other_sense, loto_key_number, vpn_config_no_secret, hex_register_dump,
    public_hash_of_password
"""

import json
import random
import string
import sys

SEED = 5050

AL = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(n, alpha=AL):
        return "".join(r.choice(alpha) for _ in range(n))

    def hx(n):
        return s(n, HEX)

    def HX(n):
        return s(n, "0123456789ABCDEF")

    def b64(nbytes):
        n = (nbytes + 2) // 3 * 4
        pad = (3 - nbytes % 3) % 3
        return s(n - pad, B64) + "=" * pad

    words = ["Kiln", "Boiler", "Turbine", "Conveyor", "Furnace", "Pump", "Valve", "Mixer"]
    syms = "!#$%&*@?"

    def pw():
        return r.choice(words) + r.choice(syms) + s(2, string.digits) + s(r.randint(4, 7))

    def pem(label, lines=6):
        body = "\n".join(s(64, B64) for _ in range(lines)) + "\n" + s(24, B64) + "=="
        return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"

    def uuid():
        h = hx(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def jwt():
        head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
        return head + "." + "eyJ" + s(70, AL + "-_") + "." + s(43, AL + "-_")

    def mac():
        return ":".join(HX(2) for _ in range(6))

    secret = [
        (
            "scada_admin_password",
            pw,
            [
                "WinCC OA console admin login for line 3 SCADA: user `root`, pass {v}",
                "SCADA server SCD-01 (Citect) admin password is {v} - changed after FAT",
                "note to self: iFIX node BOILERHMI, Administrator / {v}",
            ],
        ),
        (
            "hmi_runtime_password",
            pw,
            [
                "Panel PC HMI runtime operator login: Operator / {v}",
                "KTP900 HMI user admin, password {v} (level 1000)",
                "FactoryTalk View SE runtime: engineer account pw `{v}`",
            ],
        ),
        (
            "plc_project_password",
            pw,
            [
                "TIA Portal project Packline_V17 is protected, project password: {v}",
                "S7-1500 access level 'full access' password = {v}",
                "Know-how protection pwd for FB_Dosing blocks -> {v}",
            ],
        ),
        (
            "codesys_project_password",
            pw,
            [
                "CODESYS project Palletizer.project opens with password {v}",
                "codesys runtime user `Administrator` pwd {v} on the Wago 750-8212",
                "e!COCKPIT device login for PFC200 at 10.20.4.11: admin/{v}",
            ],
        ),
        (
            "rslogix_source_key",
            lambda: s(12, string.ascii_uppercase + string.digits),
            [
                "Studio 5000 source protection key for AOI_PID_Tune: {v}",
                "sk.dat entry we use for the Logix routines: Key={v}",
                "Source key to unlock Routine 'Recipe_Load' is {v}, don't lose it",
            ],
        ),
        (
            "historian_sql_password",
            pw,
            [
                "Server=HIST01;Database=Runtime;User Id=wwUser;Password={v};",
                "AVEVA Historian SQL login histread, password {v}",
                "Canary historian admin account: canaryadmin pw: {v}",
            ],
        ),
        (
            "pi_web_api_basic_auth",
            lambda: b64(r.randint(18, 27)),
            [
                "curl -H 'Authorization: Basic {v}' https://piwebapi.plant.local/piwebapi/points",
                "PI Web API header that works from the notebook: Authorization: Basic {v}",
                "postman env for PI: basicAuth = {v}",
            ],
        ),
        (
            "opcua_user_password",
            pw,
            [
                "OPC UA endpoint opc.tcp://kep01:49320 user opcclient / {v}",
                "UaExpert connection to the Prosys server: username 'reader', password '{v}'",
                "opcua: {{ url: opc.tcp://10.1.2.3:4840, user: mes_svc, password: {v} }}",
            ],
        ),
        (
            "opcua_client_private_key",
            lambda: pem("RSA PRIVATE KEY"),
            [
                "OPC UA client key for the MES connector (own/private/mes.pem):\n{v}",
                "{v}",
                "pasted from the gateway pki folder, private key of app cert:\n{v}\nthumbprint on the UA server trust list",
            ],
        ),
        (
            "modbus_gateway_password",
            pw,
            [
                "Moxa MGate 5105 web console admin password: {v}",
                "Anybus Modbus gateway at 192.168.127.254 login admin:{v}",
                "HMS gateway config page pw {v} (set by integrator)",
            ],
        ),
        (
            "mqtt_broker_password",
            pw,
            [
                "mosquitto user sensors pass {v}",
                "MQTT_USERNAME=edge01\nMQTT_PASSWORD={v}",
                "HiveMQ cluster credentials for the edge boxes: edge-gw / {v}",
            ],
        ),
        (
            "mqtt_url_credentials",
            pw,
            [
                "broker url mqtts://telemetry:{v}@mqtt.plant-north.example:8883",
                "Node-RED mqtt node points to mqtt://nodered:{v}@10.0.5.20:1883",
                "export BROKER=tcp://ingest:{v}@broker.local:1883",
            ],
        ),
        (
            "device_private_key_ec",
            lambda: pem("EC PRIVATE KEY", 3),
            [
                "AWS IoT thing press-07 private.pem.key:\n{v}",
                "edge gateway device key (do not regenerate, cert is registered):\n{v}",
                "{v}\n^ device key for the Greengrass core on line 2",
            ],
        ),
        (
            "azure_iot_conn_string",
            lambda: b64(32),
            [
                "HostName=plant-hub.azure-devices.net;DeviceId=press07;SharedAccessKey={v}",
                "iothubowner policy: HostName=ot-hub.azure-devices.net;SharedAccessKeyName=iothubowner;SharedAccessKey={v}",
                "device conn str for the IoT Edge box -> SharedAccessKey={v} (DeviceId=edge-hall4)",
            ],
        ),
        (
            "azure_iot_sas_signature",
            lambda: s(43, AL) + "%3D",
            [
                "SharedAccessSignature sr=plant-hub.azure-devices.net%2Fdevices%2Fpress07&sig={v}&se=1893456000",
                "SAS token for the mqtt test (valid until 2030): sig={v}",
                "password field for Azure IoT MQTT: SharedAccessSignature sr=hub.azure-devices.net&sig={v}&se=1900000000&skn=device",
            ],
        ),
        (
            "wireguard_private_key",
            lambda: b64(32),
            [
                "[Interface]\nPrivateKey = {v}\nAddress = 10.66.0.2/32",
                "wg0 private key on the plant jump box: {v}",
                "wireguard peer config for remote support laptop\nPrivateKey={v}\nDNS=10.66.0.1",
            ],
        ),
        (
            "openvpn_static_key",
            lambda: "\n".join(hx(32) for _ in range(8)),
            [
                "ta.key for the plant OpenVPN:\n-----BEGIN OpenVPN Static key V1-----\n{v}\n-----END OpenVPN Static key V1-----",
                "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n{v}\n-----END OpenVPN Static key V1-----\n</tls-auth>",
                "static key V1 from the eWON vpn profile:\n{v}",
            ],
        ),
        (
            "ipsec_psk",
            lambda: s(24, AL + "!#%"),
            [
                "IPsec tunnel HQ <-> Plant Lyon, IKEv2 PSK: {v}",
                ': PSK "{v}"',
                "FortiGate phase1 pre-shared key for site-to-site with the water plant = {v}",
            ],
        ),
        (
            "talk2m_password",
            pw,
            [
                "Talk2M account 'acme-automation', user jdoe, password {v}",
                "eCatcher login for the Flexy fleet: support@acme / {v}",
                "Talk2M developer id + pass for the API script: pass={v}",
            ],
        ),
        (
            "teamviewer_password",
            lambda: s(8, string.ascii_lowercase + string.digits),
            [
                "TeamViewer on the packaging HMI: ID 1 284 553 901, permanent password {v}",
                "remote into the kiln PC via TV, pw {v}",
                "AnyDesk unattended access password for the robot cell PC: {v}",
            ],
        ),
        (
            "cellular_router_password",
            pw,
            [
                "Teltonika RUT955 on pump station 4, WebUI admin / {v}",
                "Sierra AirLink RV50 ACEmanager user: user, pass {v}",
                "Cradlepoint IBR900 admin password set to {v}",
            ],
        ),
        (
            "apn_password",
            lambda: s(10, string.ascii_lowercase + string.digits),
            [
                "private APN m2m.plant.corp, username plantm2m, password {v}",
                "APN creds for the SIMs in the RTUs: pass {v}",
                'AT+CGAUTH=1,1,"ot_user","{v}"',
            ],
        ),
        (
            "snmp_write_community",
            lambda: s(14, AL),
            [
                "SNMP write community on the Hirschmann switches: {v}",
                "snmp-server community {v} RW 10",
                "rw community string for the UPS cards = {v}",
            ],
        ),
        (
            "snmpv3_auth_pass",
            lambda: s(16, AL + "#!"),
            [
                "snmpv3 user nms, authPriv, SHA auth pass {v}, AES priv same",
                "snmp-server user monitor OT v3 auth sha {v} priv aes 128 {v}",
                "Zabbix SNMPv3 authpassphrase for the RUGGEDCOM: {v}",
            ],
        ),
        (
            "robot_controller_password",
            pw,
            [
                "FANUC R-30iB FTP login for backups: robot / {v}",
                "ABB IRC5 RobotWebServices default user replaced, now Admin / {v}",
                "KUKA smartPAD expert user password {v}",
            ],
        ),
        (
            "rosbridge_secret",
            lambda: s(32, AL),
            [
                "rosauth secret for rosbridge on the AMR fleet: {v}",
                "ROS param /rosbridge/secret_file contents: {v}",
                "mac auth secret used by rosbridge_server: {v}",
            ],
        ),
        (
            "firmware_signing_key",
            lambda: pem("PRIVATE KEY", 2),
            [
                "OTA signing key (ed25519) for the controller firmware:\n{v}",
                "MCUboot signing key root-ec-p256.pem, production:\n{v}",
                "{v}\nthis is the release signing key, keep off CI logs",
            ],
        ),
        (
            "gpg_signing_passphrase",
            lambda: " ".join(
                r.choice(
                    [
                        "amber",
                        "relay",
                        "torque",
                        "ladder",
                        "rung",
                        "flux",
                        "quartz",
                        "gantry",
                        "spindle",
                    ]
                )
                for _ in range(5)
            ),
            [
                "passphrase for the firmware release GPG key: {v}",
                "gpg --batch --passphrase '{v}' --detach-sign fw.bin",
                "OTA GPG key pass is '{v}'",
            ],
        ),
        (
            "mender_tenant_token",
            jwt,
            [
                "mender.conf TenantToken: {v}",
                '"TenantToken": "{v}"',
                "tenant token for hosted Mender (fleet plant-B): {v}",
            ],
        ),
        (
            "balena_api_key",
            lambda: s(32, AL),
            [
                "balena api key for the kiosk fleet: {v}",
                "BALENA_API_KEY={v}",
                "balena login --token {v}",
            ],
        ),
        (
            "niagara_admin_password",
            pw,
            [
                "Niagara 4 station BMS-Tower-A, admin / {v}",
                "JACE-8000 platform daemon login: tridium, pass {v}",
                "Niagara station passphrase (for backups): {v}",
            ],
        ),
        (
            "bms_web_password",
            pw,
            [
                "Metasys ADX login for HVAC contractor: contractor1 / {v}",
                "Desigo CC user facility_eng, password {v}",
                "EcoStruxure Building Operation WorkStation admin pw {v}",
            ],
        ),
        (
            "vendor_portal_password",
            pw,
            [
                "Siemens Industry Online Support login: j.doe@acme.com / {v}",
                "Rockwell PCDC account for firmware downloads, pw {v}",
                "Schneider mySE portal creds: automation@acme.com {v}",
            ],
        ),
        (
            "github_pat",
            lambda: "ghp_" + s(36),
            [
                "PAT for pulling the PLC export repo in CI: {v}",
                "git clone https://{v}@github.com/acme-ot/plc-exports.git",
                "GITHUB_TOKEN={v}  # used by the TIA openness export job",
            ],
        ),
        (
            "aws_secret_access_key",
            lambda: s(40, AL + "/+"),
            [
                "aws_access_key_id = AKIA" + "{k}\naws_secret_access_key = {v}",
                "IoT provisioning IAM user secret key: {v}",
                "AWS_SECRET_ACCESS_KEY={v} for the S3 historian archive",
            ],
        ),
        (
            "influxdb_token",
            lambda: s(86, AL + "-_") + "==",
            [
                "INFLUX_TOKEN={v}",
                'telegraf outputs.influxdb_v2 token = "{v}"',
                "influx all-access token (plant bucket): {v}",
            ],
        ),
        (
            "grafana_sa_token",
            lambda: "glsa_" + s(32) + "_" + hx(8),
            [
                "Grafana service account token for dashboard provisioning: {v}",
                "GF_TOKEN={v}",
                "Authorization: Bearer {v}",
            ],
        ),
        (
            "node_red_credential_secret",
            lambda: s(40, AL),
            [
                'settings.js credentialSecret: "{v}"',
                "NODE_RED_CREDENTIAL_SECRET={v}",
                "Node-RED flows_cred.json decrypts with {v}",
            ],
        ),
        (
            "ignition_gateway_password",
            pw,
            [
                "Ignition gateway admin (port 8088) admin/{v}",
                "Ignition gw commissioning: username admin password {v}",
                "Perspective project designer login: integrator / {v}",
            ],
        ),
        (
            "kepware_admin_password",
            pw,
            [
                "KEPServerEX administrator password: {v}",
                "Kepware config API user apiuser pwd {v}",
                "ThingWorx Kepware Server settings admin - {v}",
            ],
        ),
        (
            "thingworx_app_key",
            uuid,
            [
                "ThingWorx appKey for the connector: {v}",
                "curl -H 'appKey: {v}' https://twx.plant/Thingworx/Things",
                "Kepware IoT Gateway -> ThingWorx, Application Key = {v}",
            ],
        ),
        (
            "slack_webhook",
            lambda: (
                "https://hooks.slack.com/services/T"
                + s(8, string.ascii_uppercase + string.digits)
                + "/B"
                + s(10, string.ascii_uppercase + string.digits)
                + "/"
                + s(24)
            ),
            [
                "alarm webhook to #plant-alarms: {v}",
                "webhook_url: {v}",
                "historian watchdog posts to {v}",
            ],
        ),
        (
            "twilio_auth_token",
            lambda: hx(32),
            [
                "Twilio SID AC" + "{k}" + " auth token {v} for SMS call-outs",
                "TWILIO_AUTH_TOKEN={v}",
                "SMS alarm dialer auth token: {v}",
            ],
        ),
        (
            "pagerduty_routing_key",
            lambda: hx(32),
            [
                "PagerDuty Events v2 routing_key for SCADA alarms: {v}",
                '"routing_key": "{v}"',
                "integration key for the OT on-call service: {v}",
            ],
        ),
        (
            "ssh_private_key",
            lambda: pem("OPENSSH PRIVATE KEY", 5),
            [
                "jump host key for plant DMZ (id_ed25519):\n{v}",
                "{v}",
                "deploy key for the historian box:\n{v}",
            ],
        ),
        (
            "jump_host_password",
            pw,
            [
                "ssh otadmin@jump.plant.local password {v}",
                "DMZ bastion login: otadmin / {v}",
                "sshpass -p '{v}' ssh svc@10.50.0.4",
            ],
        ),
        (
            "rdp_password",
            pw,
            [
                "EWS-03 engineering workstation, .\\engineer / {v} over RDP",
                "RDP into historian server as PLANT\\svc_hist, pw {v}",
                "cmdkey /generic:TERMSRV/ews01 /user:eng /pass:{v}",
            ],
        ),
        (
            "vnc_password",
            lambda: s(8, AL),
            [
                "VNC to the HMI panel 10.3.1.40, password {v}",
                "UltraVNC on the wrapper HMI: view-only pw {v}",
                "x11vnc -passwd {v} -display :0 on the ROS teleop box",
            ],
        ),
        (
            "postgres_url",
            pw,
            [
                "DATABASE_URL=postgresql://tsdb:{v}@timescale.plant:5432/metrics",
                "timescale conn: postgres://grafana_ro:{v}@10.8.0.3/scada",
                'psql "host=hist02 user=postgres password={v} dbname=mes"',
            ],
        ),
        (
            "redis_password",
            lambda: s(32, AL),
            [
                "requirepass {v}",
                "redis-cli -h 10.4.0.9 -a {v} monitor",
                "REDIS_URL=redis://:{v}@cache.mes:6379/0",
            ],
        ),
        (
            "hmi_web_session_jwt",
            jwt,
            [
                "HMI web session token captured while debugging: {v}",
                "Cookie: session={v}",
                "bearer for the MES REST api (logged in as supervisor): {v}",
            ],
        ),
        (
            "session_cookie",
            lambda: s(32, string.ascii_uppercase + string.digits),
            [
                "Cookie: JSESSIONID={v} (SCADA web client, still logged in)",
                "ASP.NET_SessionId={v} from the FactoryTalk portal",
                "copy this cookie to get into the BMS without 2FA: sid={v}",
            ],
        ),
        (
            "wifi_psk",
            lambda: s(16, AL + "!#"),
            [
                "AGV wifi SSID PLANT-AGV, WPA2 key {v}",
                'wpa_passphrase PLANT-OT "{v}"',
                "Hall 5 wireless (robots) psk={v}",
            ],
        ),
        (
            "ota_hmac_secret",
            lambda: hx(64),
            [
                "OTA manifest HMAC secret: {v}",
                "OTA_HMAC_KEY={v}",
                "shared secret used to sign update manifests (HMAC-SHA256): {v}",
            ],
        ),
        (
            "flash_encryption_key",
            lambda: hx(64),
            [
                "ESP32 flash encryption key for the sensor nodes: {v}",
                "espsecure key we burned into eFuse BLOCK1 (prod): {v}",
                "AES-256 firmware image encryption key: {v}",
            ],
        ),
        (
            "lorawan_appkey",
            lambda: HX(32),
            [
                "LoRaWAN OTAA AppKey for tank level sensor 12: {v}",
                "ChirpStack device keys: nwk_key={v}",
                "appkey {v} (DevEUI in the sheet)",
            ],
        ),
        (
            "code_signing_pfx_password",
            pw,
            [
                "signtool sign /f acme_codesign.pfx /p {v} /tr http://timestamp.digicert.com setup.exe",
                "PFX password for the HMI installer signing cert: {v}",
                "code signing cert export pass = {v}",
            ],
        ),
        (
            "docker_registry_password",
            pw,
            [
                "docker login registry.plant.local -u ci -p {v}",
                "harbor robot account robot$edge pass {v}",
                "registry creds for edge images: ci / {v}",
            ],
        ),
        (
            "sendgrid_api_key",
            lambda: "SG." + s(22, AL + "-_") + "." + s(43, AL + "-_"),
            [
                "shift report mailer SENDGRID_API_KEY={v}",
                "SendGrid key for OEE emails: {v}",
                "apikey: {v}",
            ],
        ),
        (
            "tailscale_auth_key",
            lambda: "tskey-auth-k" + s(10) + "CNTRL-" + s(32),
            [
                "tailscale up --authkey {v}",
                "TS_AUTHKEY={v} (reusable, for the robot fleet)",
                "auth key for joining edge boxes to the tailnet: {v}",
            ],
        ),
        (
            "ngrok_authtoken",
            lambda: s(27) + "_" + s(21),
            [
                "ngrok config add-authtoken {v}",
                "authtoken: {v}",
                "ngrok token to expose the node-red editor temporarily: {v}",
            ],
        ),
        (
            "uboot_password",
            lambda: s(12, AL),
            [
                "U-Boot autoboot stop password on the gateway: {v}",
                "bootloader console password for the IPC: {v}",
                "CONFIG_AUTOBOOT_STOP_STR_SHA256 set from password {v}",
            ],
        ),
        (
            "bacnet_sc_hub_key",
            lambda: pem("PRIVATE KEY", 3),
            [
                "BACnet/SC hub operational certificate private key:\n{v}",
                "{v}\n(bacnet secure connect hub, building C)",
                "private key for the BACnet/SC node in the chiller plant:\n{v}",
            ],
        ),
    ]

    benign = [
        (
            "device_serial_number",
            lambda: "SC-" + HX(4) + "-" + HX(8),
            [
                "PLC on line 3 has serial {v}, warranty until 2028",
                "Replaced the CPU, new serial number: {v}",
                "asset register: S7-1516F, SN {v}",
            ],
        ),
        (
            "mac_address",
            mac,
            [
                "HMI panel MAC {v} reserved in DHCP",
                "robot controller eth0 hwaddr {v}",
                "The Moxa gateway shows MAC {v} on the label",
            ],
        ),
        (
            "cert_sha1_thumbprint",
            lambda: HX(40),
            [
                "OPC UA server cert thumbprint {v} - trust it on the client",
                "Thumbprint: {v}",
                "Import-PfxCertificate done; cert thumbprint is {v}",
            ],
        ),
        (
            "cert_sha256_fingerprint",
            lambda: ":".join(HX(2) for _ in range(32)),
            [
                "broker TLS cert SHA256 fingerprint {v}",
                "pin this fingerprint in the edge agent: {v}",
                "openssl x509 -fingerprint -sha256 output: {v}",
            ],
        ),
        (
            "opcua_node_id",
            lambda: "ns=2;s=Line3.Secure.Password_Req_" + s(4, string.digits),
            [
                "node id to watch: {v}",
                "subscribe to {v} (BOOL, true when operator must log in)",
                "UaExpert shows {v} as read-only",
            ],
        ),
        (
            "plc_tag_password_name",
            lambda: "HMI_PasswordLevel_" + s(2, string.digits),
            [
                "tag {v} is an INT holding the current login level",
                "map {v} to the MW200 area",
                "{v}: DINT, retains the last logged-in user level, not the password",
            ],
        ),
        (
            "plc_tag_key_name",
            lambda: "Key_Switch_" + r.choice(["RUN", "REM", "PROG"]) + "_" + s(2, string.digits),
            [
                "{v} goes high when the physical key switch is in position",
                "alarm if {v} changes during production",
                "I/O list: %I4.3 = {v}",
            ],
        ),
        (
            "historian_tag_token",
            lambda: "PLANT.TOKEN_BUCKET.Fill_" + hx(6),
            [
                "PI point {v} tracks the token bucket fill for the rate limiter",
                "trend {v} next to the cpu load",
                "tag name {v} looks odd but it is just a counter",
            ],
        ),
        (
            "mqtt_topic_secret_word",
            lambda: "plant/" + s(6, string.ascii_lowercase) + "/auth/token/status",
            [
                "edge publishes to {v} whenever a token refresh happens (no payload secrets)",
                "topic {v} only carries ok/fail",
                "ACL: allow read on {v}",
            ],
        ),
        (
            "wireguard_public_key",
            lambda: b64(32),
            [
                "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.66.0.0/24",
                "plant hub wg public key: {v}",
                "add this peer pubkey to the server: {v}",
            ],
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(43, B64),
            [
                "authorized_keys on the jump host:\n{v} otadmin@laptop",
                "my public key for the historian box: {v}",
                "{v} ci@builder (public half, fine to share)",
            ],
        ),
        (
            "ssh_host_fingerprint",
            lambda: "SHA256:" + s(43, B64),
            [
                "ED25519 key fingerprint is {v}.",
                "verify host key of jump.plant.local: {v}",
                "known host fingerprint for the ROS nav box {v}",
            ],
        ),
        (
            "git_commit_sha",
            lambda: hx(40),
            [
                "PLC export that passed SAT is commit {v}",
                "revert to {v} if the recipe change misbehaves",
                "ladder diff introduced in {v}",
            ],
        ),
        (
            "firmware_sha256",
            lambda: hx(64),
            [
                "fw_v4.2.1.bin sha256 {v}",
                'OTA manifest: "sha256": "{v}"',
                "vendor published checksum {v} for the gateway firmware",
            ],
        ),
        (
            "ed25519_verify_key",
            lambda: hx(64),
            [
                "firmware verification public key (burned into bootloader): {v}",
                'ota_pubkey = "{v}"  # public, devices check signatures with it',
                "signature verify key for the update agent: {v} (public)",
            ],
        ),
        (
            "device_uuid",
            uuid,
            [
                "device id of the edge gateway in the fleet: {v}",
                "ROS robot instance uuid {v}",
                "Ignition gateway system id {v}",
            ],
        ),
        (
            "azure_iot_hostname_only",
            lambda: "HostName=plant-hub.azure-devices.net;DeviceId=press-" + s(3, string.digits),
            [
                "{v};SharedAccessKey=<from Key Vault>",
                "the connection string minus the key: {v}",
                "device conn string template {v};SharedAccessKey=${{IOT_KEY}}",
            ],
        ),
        (
            "aws_iot_endpoint",
            lambda: (
                s(14, string.ascii_lowercase + string.digits)
                + "-ats.iot.eu-central-1.amazonaws.com"
            ),
            [
                "AWS IoT data endpoint: {v}",
                "mqtt host {v} port 8883",
                "greengrass iotDataEndpoint: {v}",
            ],
        ),
        (
            "aws_docs_example_key",
            lambda: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            [
                "AWS docs example secret key {v} - use it in the README sample only",
                "placeholder in the template: aws_secret_access_key = {v}",
                "the unit test uses the documented example value {v}",
            ],
        ),
        (
            "vault_reference",
            lambda: "vault:secret/data/plant/" + s(6, string.ascii_lowercase) + "#password",
            [
                "mqtt password comes from {v}",
                "PLC project password stored at {v}, ask OT lead for access",
                "historian creds: {v}",
            ],
        ),
        (
            "env_var_reference",
            lambda: "${" + r.choice(["MQTT", "OPCUA", "HIST", "SCADA"]) + "_PASSWORD}",
            [
                "password: {v}",
                "MQTT_PASSWORD={v} is injected at deploy time",
                "in docker-compose: OPC_PASS: {v}",
            ],
        ),
        (
            "redacted_password",
            lambda: r.choice(["********", "[REDACTED]", "<redacted>", "xxxxxxxx"]),
            [
                "Teltonika admin password: {v} (see password manager)",
                "log line: login user=admin password={v}",
                "SCADA admin pw {v} - rotated Tuesday",
            ],
        ),
        (
            "placeholder_password",
            lambda: r.choice(["<YOUR_PASSWORD>", "changeme", "CHANGE_ME", "your-password-here"]),
            [
                "example config for the wiki: mqtt password: {v}",
                "template .env: HIST_PASSWORD={v}",
                "doc snippet: opcua user reader / {v}",
            ],
        ),
        (
            "password_policy_talk",
            lambda: "",
            [
                "HMI passwords must be at least 12 characters and rotate every 180 days per IEC 62443-3-3 SR 1.7",
                "Talked with the integrator: project password for TIA is now in the OT vault, not in the handover doc.",
                "Reminder: never type the PLC protection password into the shared Teams chat again.",
            ],
        ),
        (
            "mosquitto_passwd_hash",
            lambda: "$7$101$" + b64(12) + "$" + b64(64),
            [
                "passwd file line: sensors:{v}",
                "mosquitto_passwd generated hash {v} (PBKDF2-SHA512)",
                "hash only, original not kept: {v}",
            ],
        ),
        (
            "keystore_path",
            lambda: "/opt/kepware/pki/own/private/" + s(6, string.ascii_lowercase) + "_key.pem",
            [
                "private key lives at {v}, permissions 600",
                "backup excludes {v}",
                "if the UA server fails to start, check {v} exists",
            ],
        ),
        (
            "sim_iccid",
            lambda: "8949" + s(15, string.digits),
            [
                "SIM in pump station 4 router: ICCID {v}",
                "ICCID {v} activated on the M2M plan",
                "swap SIM {v} to the spare RUT955",
            ],
        ),
        (
            "modem_imei",
            lambda: "35" + s(13, string.digits),
            [
                "modem IMEI {v}",
                "RV50 IMEI: {v}, firmware 4.14",
                "the carrier whitelisted IMEI {v}",
            ],
        ),
        (
            "sim_imsi",
            lambda: "26201" + s(10, string.digits),
            [
                "IMSI {v} shows attached in the portal",
                "AT+CIMI returned {v}",
                "IMSI for the LTE modem on the AGV charger {v}",
            ],
        ),
        (
            "historian_primary_key",
            lambda: s(7, string.digits),
            [
                "Runtime.dbo.Tag primary key {v} is the Boiler1 steam flow",
                "TagKey={v} in the History table",
                "row with primary key {v} duplicated after migration",
            ],
        ),
        (
            "opcua_security_policy",
            lambda: "http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256",
            [
                "endpoint uses {v} with SignAndEncrypt",
                "SecurityPolicyUri={v}",
                "disable None policy, keep {v}",
            ],
        ),
        (
            "x509_certificate",
            lambda: pem("CERTIFICATE", 5),
            [
                "OPC UA server application certificate (public):\n{v}",
                "{v}\ntrust this CA on all HMIs",
                "broker CA cert, fine to commit:\n{v}",
            ],
        ),
        (
            "certificate_request",
            lambda: pem("CERTIFICATE REQUEST", 4),
            [
                "CSR for the new historian cert:\n{v}",
                "{v}\nsent to IT PKI team",
                "generated CSR on the gateway (key stays on device):\n{v}",
            ],
        ),
        (
            "public_key_pem",
            lambda: pem("PUBLIC KEY", 2),
            [
                "firmware verification public key:\n{v}",
                "{v}\nembed in the bootloader",
                "MCUboot public key exported with imgtool getpub:\n{v}",
            ],
        ),
        (
            "gpg_fingerprint",
            lambda: " ".join(HX(4) for _ in range(10)),
            [
                "release signing key fingerprint: {v}",
                "verify fw.bin.sig against {v}",
                "Key fingerprint = {v}",
            ],
        ),
        (
            "ci_build_id",
            lambda: hx(24),
            [
                "firmware build {v} failed on the ARM runner",
                "pipeline job {v} produced the OTA artifacts",
                "rerun build {v}",
            ],
        ),
        (
            "bacnet_object",
            lambda: "AHU" + s(2, string.digits) + ".SecretSetpoint-AV" + s(3, string.digits),
            [
                "BACnet object {v} is just a hidden setpoint, not a credential",
                "map {v} on device instance 2001",
                "trend {v} every 5 minutes",
            ],
        ),
        (
            "modbus_crc",
            lambda: "0x" + HX(4),
            [
                "Modbus RTU frame CRC was {v}, matches",
                "last frame CRC {v}",
                "CRC16 {v} on register read 40001",
            ],
        ),
        (
            "s7_block_checksum",
            lambda: "16#" + HX(8),
            [
                "OB1 checksum after download: {v}",
                "compare online/offline: signature {v}",
                "program checksum {v} recorded in the MOC",
            ],
        ),
        (
            "mqtt_client_id",
            lambda: "edge-" + hx(12),
            [
                "client id {v} keeps reconnecting",
                "mqtt clientId: {v}",
                "broker kicked {v} for duplicate session",
            ],
        ),
        (
            "aws_secret_arn",
            lambda: (
                "arn:aws:secretsmanager:eu-west-1:"
                + s(12, string.digits)
                + ":secret:plant/mqtt-"
                + s(6)
            ),
            [
                "the mqtt password is in {v}",
                "grant GetSecretValue on {v} to the greengrass role",
                "SecretId={v}",
            ],
        ),
        (
            "key_vault_uri",
            lambda: (
                "https://ot-kv-"
                + s(4, string.ascii_lowercase)
                + ".vault.azure.net/secrets/scada-admin/"
                + hx(32)
            ),
            [
                "SCADA admin password reference: {v}",
                "pipeline pulls {v}",
                "secret version {v}",
            ],
        ),
        (
            "k8s_secret_ref",
            lambda: "opcua-creds",
            [
                "env:\n- name: OPC_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: {v}\n      key: password",
                "kubectl get secret {v} -n edge -o yaml (don't paste output)",
                "mount secret {v} at /run/secrets",
            ],
        ),
        (
            "docker_digest",
            lambda: "sha256:" + hx(64),
            [
                "edge agent image pinned at {v}",
                "image: registry.plant.local/ot/nodered@{v}",
                "digest {v}",
            ],
        ),
        (
            "npm_integrity",
            lambda: "sha512-" + b64(64),
            [
                "node-red-contrib-modbus integrity {v}",
                '"integrity": "{v}"',
                "lockfile hash changed: {v}",
            ],
        ),
        (
            "tailscale_node_pubkey",
            lambda: "nodekey:" + hx(64),
            [
                "robot-07 node key {v}",
                "tailscale status shows {v}",
                "public node key {v} (expires in 180d)",
            ],
        ),
        (
            "base64_config_blob",
            lambda: "eyJzaXRlIjoicGxhbnQtbm9ydGgiLCJsaW5lIjozfQ==",
            [
                'tag config blob (base64 of {{"site":"plant-north","line":3}}): {v}',
                "ConfigMap data.settings = {v}",
                "decoded {v} -> site and line only",
            ],
        ),
        (
            "correlation_id",
            lambda: "req-" + s(20, AL),
            [
                "MES call failed, correlation id {v}",
                "x-request-id: {v}",
                "support asked for trace id {v}",
            ],
        ),
        (
            "ros_param_name",
            lambda: "/amr" + s(2, string.digits) + "/auth/token_refresh_period",
            [
                "ros param {v} set to 300",
                "rosparam get {v}",
                "{v} is seconds, not a token",
            ],
        ),
        (
            "robot_program_checksum",
            lambda: HX(16),
            [
                "KRL program checksum {v} after the weld path change",
                "RAPID module hash {v}",
                "compare TP program checksum {v}",
            ],
        ),
        (
            "profinet_station_name",
            lambda: "plc-line" + s(2, string.digits) + "-key-" + s(4, string.ascii_lowercase),
            [
                "PROFINET device name {v}",
                "assign name {v} with Proneta",
                "station {v} lost connection",
            ],
        ),
        (
            "change_ticket",
            lambda: "CHG" + s(7, string.digits),
            [
                "password rotation for SCADA service accounts done under {v}",
                "{v}: rotate MQTT broker credentials",
                "VPN PSK change approved in {v}",
            ],
        ),
        (
            "lorawan_deveui",
            lambda: HX(16),
            [
                "DevEUI {v} for tank level sensor 12",
                "JoinEUI {v}",
                "gateway EUI {v}",
            ],
        ),
        (
            "tpm_ek_hash",
            lambda: hx(64),
            [
                "TPM EK public hash {v} enrolled in DPS",
                "endorsement key pub sha256 {v}",
                "registration id derived from EK {v}",
            ],
        ),
        (
            "git_lfs_oid",
            lambda: hx(64),
            [
                "version https://git-lfs.github.com/spec/v1\noid sha256:{v}\nsize 48233",
                "LFS pointer for plc_backup.zap17 oid {v}",
                "lfs oid {v} missing on server",
            ],
        ),
        (
            "grafana_dashboard_uid",
            lambda: s(9, AL),
            [
                "OEE dashboard uid {v}",
                "https://grafana.plant/d/{v}/oee",
                "dashboard {v} provisioned from git",
            ],
        ),
        (
            "node_red_node_id",
            lambda: hx(8) + "." + hx(6),
            [
                "node {v} is the modbus read",
                '"id": "{v}"',
                "debug node {v} spams the sidebar",
            ],
        ),
        (
            "wifi_ssid",
            lambda: "PLANT-OT-" + s(4, string.ascii_uppercase),
            [
                "SSID {v} for the AGVs",
                "{v} hidden SSID, 5 GHz",
                "roam between {v} APs",
            ],
        ),
        (
            "know_how_statement",
            lambda: "",
            [
                "Know-how protection enabled on FB_Dosing; password is in the OT vault entry 'TIA-Dosing'.",
                "Source protection on the Logix AOIs is on, key file kept offline by the controls lead.",
                "We turned off the HMI autologin; operators now use badge + PIN.",
            ],
        ),
        (
            "tls_session_ticket_talk",
            lambda: "session ticket",
            [
                "mosquitto: disabled TLS {v} resumption to keep audit simple",
                "the {v} lifetime is 2h on the broker",
                "no {v} support on the old RTU firmware",
            ],
        ),
        (
            "rsa_modulus_jwks",
            lambda: s(86, AL + "-_"),
            [
                'JWKS from the MES IdP: {{"kty":"RSA","e":"AQAB","n":"{v}"}}',
                "public modulus n={v}",
                "jwks n value {v}",
            ],
        ),
        (
            "license_activation_id",
            lambda: "ACT-" + HX(4) + "-" + HX(4) + "-" + HX(4),
            [
                "FactoryTalk activation ID {v} (tracking only, host-bound)",
                "license order activation {v}",
                "activation id {v} moved to the new server",
            ],
        ),
        (
            "hmi_screen_name",
            lambda: "scr_PasswordChange_" + s(2, string.digits),
            [
                "screen {v} lets operators change their own pw",
                "navigation button to {v}",
                "{v} layout broken on 7 inch panels",
            ],
        ),
        (
            "ota_manifest_version",
            lambda: "4." + s(1, string.digits) + "." + s(2, string.digits) + "+" + hx(7),
            [
                "OTA channel stable now serves {v}",
                "fleet updated to {v}",
                "rollback to {v}",
            ],
        ),
        (
            "signature_blob",
            lambda: b64(64),
            [
                "fw.bin.sig (ed25519 signature, public): {v}",
                "manifest signature {v}",
                "signature field {v} verified OK",
            ],
        ),
        (
            "token_word_other_sense",
            lambda: "",
            [
                "Token ring on the old DH+ network replaced by EtherNet/IP.",
                "The tokenizer in the alarm text classifier splits on underscores.",
                "Shift handover uses a physical token (brass tag) for the lockout box.",
            ],
        ),
        (
            "loto_key_number",
            lambda: "LOTO-" + s(4, string.digits),
            [
                "lockout key {v} is with maintenance",
                "padlock key {v} missing from the board",
                "key {v} for the MCC room",
            ],
        ),
        (
            "vpn_config_no_secret",
            lambda: "remote vpn.plant.example 1194",
            [
                "client\ndev tun\n{v}\nauth-user-pass\n# credentials prompted at connect",
                "{v} udp, tls-auth file kept on the USB token",
                "openvpn profile line: {v}",
            ],
        ),
        (
            "hex_register_dump",
            lambda: " ".join(HX(4) for _ in range(8)),
            [
                "holding registers 40001-40008: {v}",
                "raw read: {v}",
                "Modbus dump {v}",
            ],
        ),
        (
            "public_hash_of_password",
            lambda: hx(64),
            [
                "sha256 of the new HMI password (for audit, not reversible): {v}",
                "stored password hash {v}",
                "hash {v} matches what the SIEM logged",
            ],
        ),
    ]

    rows = []
    for label, table in (("secret", secret), ("benign", benign)):
        for kind, gen, templates in table:
            for t in templates:
                v = gen()
                text = t.format(
                    v=v,
                    k=s(16, string.ascii_uppercase + string.digits)
                    if label == "secret" and kind != "twilio_auth_token"
                    else hx(32),
                )
                assert v in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(row) for row in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
