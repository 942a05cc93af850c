# ruff: noqa: E501
"""Blind secret-detector corpus 56: home-lab and self-hosting agent memory.

Brief: notes a home-lab / self-hosting enthusiast's coding agent keeps (Proxmox, TrueNAS, Home Assistant, Pi-hole, Nextcloud, Jellyfin/Plex, reverse proxies and DNS/ACME, WireGuard/Tailscale, router and IoT logins, restic/borg/rclone backups, dynamic DNS, self-hosted Git and password managers), with live secrets and look-alikes that are not secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_56.py [out.jsonl]

Kinds, secret: proxmox_api_token_secret, proxmox_root_password, truenas_api_key, home_assistant_long_lived_token, pihole_web_password, pihole_api_token, nextcloud_app_password, nextcloud_admin_password, jellyfin_api_key, plex_token, cloudflare_api_token, cloudflare_global_api_key, duckdns_token, wireguard_private_key, wireguard_preshared_key, tailscale_auth_key, tailscale_api_or_oauth_secret, router_admin_password, wifi_psk, mqtt_password, restic_repo_password, borg_passphrase, rclone_obscured_password, backblaze_b2_application_key, s3_secret_access_key, minio_root_password, gitea_access_token, gitlab_personal_access_token, github_personal_access_token, vaultwarden_admin_token, password_manager_master_password, openssh_private_key, smb_credentials, database_url_with_password, mariadb_root_password, ddns_update_url_credentials, telegram_bot_token, discord_webhook_url, pushover_app_token, ntfy_access_token, ipmi_bmc_password, zigbee_network_key, esphome_api_encryption_key, tuya_local_key, influxdb_token, authelia_secret, tls_private_key, k3s_join_token, portainer_api_key, smtp_app_password, totp_seed, zfs_encryption_passphrase, nas_admin_password, age_secret_key
Kinds, benign: git_commit_sha, docker_image_digest, disk_uuid, zfs_pool_guid, wireguard_public_key, ssh_public_key, ssh_host_fingerprint, tls_certificate_pem, placeholder_token, changeme_placeholder, env_var_reference, password_manager_reference, masked_token, redacted_value, aws_documented_example_key, mac_address, hardware_serial_number, tailscale_node_public_key, cloudflare_zone_or_account_id, plex_machine_identifier, docker_container_id, restic_snapshot_id, borg_repo_id, argon2_hash, htpasswd_bcrypt_hash, iso_checksum, gpg_fingerprint, acme_challenge_txt_value, dkim_public_key, turnstile_site_key, proxmox_token_id_without_secret, jellyfin_item_id, zigbee_ieee_address, expired_totp_code, password_policy_text, password_generator_command, revoked_tailscale_auth_key, documented_factory_default_login, compose_secret_file_reference, nextcloud_instance_id, tls_certificate_serial, private_ip_address, env_example_template, public_test_broker_credentials, tailnet_name, base64_nonsecret_config, ha_entity_and_device_id, letsencrypt_account_url, docker_volume_name, tailscale_ip, jwt_documented_example, pbs_certificate_fingerprint, rclone_crypt_filename, syncthing_device_id, age_public_key, config_file_md5
"""

import base64
import json
import random
import string
import sys

SEED = 5656

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"

WORDS = [
    "kastanie",
    "blue",
    "otter",
    "marmot",
    "gravel",
    "pickle",
    "sunset",
    "harbor",
    "tulip",
    "walrus",
    "copper",
    "mango",
    "falcon",
    "bramble",
    "nebula",
    "cobalt",
    "pinecone",
    "lantern",
    "biscuit",
    "thunder",
    "waffle",
    "meadow",
    "rocket",
    "velvet",
]
SYMS = "!#$%&*?@+-_."


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def pick(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def rbytes(n: int) -> bytes:
        return bytes(rng.randrange(256) for _ in range(n))

    def b64(n: int) -> str:
        return base64.b64encode(rbytes(n)).decode()

    def b64u(n: int) -> str:
        return base64.urlsafe_b64encode(rbytes(n)).decode().rstrip("=")

    def hexs(n: int) -> str:
        return pick(HEX, n)

    def uuid4() -> str:
        h = hexs(32)
        h = h[:12] + "4" + h[13:16] + rng.choice("89ab") + h[17:]
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def human_pw() -> str:
        style = rng.randrange(4)
        w1, w2 = rng.sample(WORDS, 2)
        d = str(rng.randrange(10, 9999))
        s = rng.choice(SYMS)
        if style == 0:
            return w1.capitalize() + w2 + d + s
        if style == 1:
            return w1.capitalize() + s + w2.capitalize() + d
        if style == 2:
            return w1 + d + s + w2
        return w1.capitalize().replace("a", "@").replace("o", "0") + d + s

    def gen_pw(n: int = 20) -> str:
        alpha = ALNUM + "!#%^*-_=+"
        while True:
            p = pick(alpha, n)
            if any(c.isdigit() for c in p) and any(c.isupper() for c in p):
                return p

    def pem(label: str, nbytes: int) -> str:
        body = b64(nbytes)
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    def openssh_key() -> str:
        raw = (
            b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x003\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 "
            + rbytes(32)
            + rbytes(250)
        )
        body = base64.b64encode(raw).decode()
        lines = [body[i : i + 70] for i in range(0, len(body), 70)]
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + "\n".join(lines)
            + "\n-----END OPENSSH PRIVATE KEY-----"
        )

    def ha_jwt() -> str:
        head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
        iat = rng.randrange(1_650_000_000, 1_790_000_000)
        payload = json.dumps(
            {"iss": hexs(32), "iat": iat, "exp": iat + 315360000}, separators=(",", ":")
        )
        p = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
        return f"{head}.{p}.{b64u(32)}"

    def ts_key(kind: str) -> str:
        return f"tskey-{kind}-k{pick(ALNUM, 10)}CNTRL-{pick(ALNUM, 33)}"

    def add(label: str, kind: str, gen, templates) -> None:
        for t in templates:
            v = gen()
            assert "{V}" in t, (kind, t)
            rows.append({"label": label, "kind": kind, "text": t.replace("{V}", v), "value": v})

    def S(kind, gen, templates):
        add("secret", kind, gen, templates)

    def B(kind, gen, templates):
        add("benign", kind, gen, templates)

    # ------------------------------------------------------------------ secrets
    S(
        "proxmox_api_token_secret",
        uuid4,
        [
            "pve api token for terraform: user terraform@pve!tf, secret {V} (privsep off, role PVEAdmin on /)",
            "curl -sk -H 'Authorization: PVEAPIToken=root@pam!homepage={V}' https://pve.lan:8006/api2/json/nodes",
            'PROXMOX_VE_API_TOKEN="terraform@pve!provider={V}"',
            "homepage services.yaml, proxmox widget:\n      username: api@pam!dash\n      password: {V}",
        ],
    )
    S(
        "proxmox_root_password",
        human_pw,
        [
            "pve1 root pw is {V} (same on pve2 till i rotate it, dont judge)",
            "ssh root@192.168.1.10   pw: {V}",
            "Proxmox-Root-Passwort für pve-node3 (Web-UI, Realm PAM): {V}",
            "| pve2 | 192.168.1.11 | root | {V} | cluster member |",
        ],
    )
    S(
        "truenas_api_key",
        lambda: "1-" + pick(ALNUM, 64),
        [
            "truenas scale api key for the homepage widget: {V}",
            "curl -H 'Authorization: Bearer {V}' http://nas.lan/api/v2.0/pool",
            "TRUENAS_API_KEY={V}",
            "made new api key on the NAS (name: scrutiny). key:\n{V}",
        ],
    )
    S(
        "home_assistant_long_lived_token",
        ha_jwt,
        [
            "HA long-lived access token (profile -> security, named 'agent'): {V}",
            'curl -X POST -H "Authorization: Bearer {V}" -H "Content-Type: application/json" http://homeassistant.local:8123/api/services/light/turn_off',
            "node-red HA server config -> access token:\n{V}",
            "HASS_TOKEN={V}",
        ],
    )
    S(
        "pihole_web_password",
        human_pw,
        [
            "pihole admin ui pass: {V}",
            "pihole -a -p '{V}'",
            "Pi-hole web password op de tweede pi (dns2) is {V}",
            "FTLCONF_webserver_api_password: '{V}'   # docker compose, pihole v6",
        ],
    )
    S(
        "pihole_api_token",
        lambda: hexs(64),
        [
            "pihole api token (settings -> api) for the HA integration: {V}",
            "curl 'http://pi.hole/admin/api.php?summaryRaw&auth={V}'",
            "homepage pihole widget key: {V}",
        ],
    )
    S(
        "nextcloud_app_password",
        lambda: "-".join(pick(ALNUM, 5) for _ in range(5)),
        [
            "nextcloud app password for davx5 on my phone: {V}",
            "rclone config: [nc] type=webdav url=https://cloud.example-home.net/remote.php/dav/files/jonas vendor=nextcloud user=jonas pass(plain)={V}",
            "Nextcloud App-Passwort für Thunderbird (Kalender): {V}",
            "curl -u jonas:{V} -X PROPFIND https://cloud.example-home.net/remote.php/dav/files/jonas/",
        ],
    )
    S(
        "nextcloud_admin_password",
        gen_pw,
        [
            "nc admin user 'ncadmin' pw {V} -- created by the AIO container, screenshot deleted",
            "NEXTCLOUD_ADMIN_PASSWORD={V}",
            "sudo -u www-data php occ user:resetpassword ncadmin  -> set it to {V}",
            "nextcloud aio passphrase (the long one for the AIO interface): {V}",
        ],
    )
    S(
        "jellyfin_api_key",
        lambda: hexs(32),
        [
            "jellyfin api key for jellyseerr: {V}",
            "curl 'http://jellyfin.lan:8096/Items?api_key={V}&Recursive=true'",
            "JELLYFIN_API_KEY={V}",
            "X-Emby-Token: {V}",
        ],
    )
    S(
        "plex_token",
        lambda: pick(ALNUM + "_-", 20),
        [
            "plex token (grabbed from view XML url): {V}",
            "https://plex.lan:32400/library/sections?X-Plex-Token={V}",
            "tautulli needs PLEX_TOKEN={V}",
            "le token plex pour kometa: {V}",
        ],
    )
    S(
        "cloudflare_api_token",
        lambda: pick(ALNUM + "_-", 40),
        [
            "CF token for traefik dns-01, Zone:DNS:Edit on example-home.net only: {V}",
            "CF_DNS_API_TOKEN={V}",
            "dns_cloudflare_api_token = {V}",
            "caddy: tls { dns cloudflare {V} }",
        ],
    )
    S(
        "cloudflare_global_api_key",
        lambda: hexs(37),
        [
            "cloudflare global api key (yes i know, use a scoped token): {V}",
            "CF_API_EMAIL=me@example-home.net\nCF_API_KEY={V}",
            "ddclient.conf: protocol=cloudflare, login=me@example-home.net, password={V}",
        ],
    )
    S(
        "duckdns_token",
        uuid4,
        [
            "duckdns token: {V} (subdomain jonaslab)",
            "curl 'https://www.duckdns.org/update?domains=jonaslab&token={V}&ip='",
            "DUCKDNS_TOKEN={V}",
            "cron on the pi calls duckdns with {V} every 5 min",
        ],
    )
    S(
        "wireguard_private_key",
        lambda: b64(32),
        [
            "[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {V}\nDNS = 192.168.1.2",
            "wg0 on the vps, private key: {V}",
            "phone peer privkey (for re-importing the QR): {V}",
            "echo '{V}' > /etc/wireguard/privatekey",
        ],
    )
    S(
        "wireguard_preshared_key",
        lambda: b64(32),
        [
            "[Peer]\nPublicKey = (laptop)\nPresharedKey = {V}\nAllowedIPs = 10.8.0.3/32",
            "psk between vps and opnsense: {V}",
        ],
    )
    S(
        "tailscale_auth_key",
        lambda: ts_key("auth"),
        [
            "tailscale up --authkey={V} --advertise-routes=192.168.1.0/24",
            "TS_AUTHKEY={V}",
            "reusable ts auth key for the LXC containers (90 days, tagged tag:lab): {V}",
            "tailscale sidecar: environment:\n  - TS_AUTHKEY={V}\n  - TS_HOSTNAME=jellyfin",
        ],
    )
    S(
        "tailscale_api_or_oauth_secret",
        lambda: ts_key(rng.choice(["api", "client"])),
        [
            "tailscale api key for the terraform provider: {V}",
            "TS_OAUTH_CLIENT_SECRET={V}",
            "ts key for the acl github action: {V}",
        ],
    )
    S(
        "router_admin_password",
        human_pw,
        [
            "fritzbox login: {V}",
            "openwrt root pw: {V}   (luci at 192.168.1.1)",
            "Router (TP-Link Archer) Admin-Passwort: {V}",
            "| opnsense | 192.168.1.1 | root | {V} |",
            "asus router: admin / {V}",
        ],
    )
    S(
        "wifi_psk",
        human_pw,
        [
            "wifi 'Otternet' pw: {V}",
            "guest wlan key: {V} (change every few months)",
            "iot vlan ssid 'lab-iot' wpa2 psk {V}",
            "WLAN-Schlüssel fürs Gästenetz: {V}",
            "wpa_passphrase lab-iot '{V}'",
        ],
    )
    S(
        "mqtt_password",
        gen_pw,
        [
            "mosquitto user 'ha' pass {V}",
            "mosquitto_pub -h 192.168.1.20 -u zigbee2mqtt -P '{V}' -t test -m hi",
            "zigbee2mqtt configuration.yaml: mqtt:\n  server: mqtt://192.168.1.20\n  user: z2m\n  password: {V}",
            "MQTT_PASSWORD={V}",
        ],
    )
    S(
        "restic_repo_password",
        lambda: gen_pw(32),
        [
            "restic repo password for b2:lab-backup: {V}  (if lost, backups are gone!!)",
            "export RESTIC_PASSWORD='{V}'",
            "RESTIC_PASSWORD={V}",
            "backrest plan 'nas-daily' repo pw: {V}",
        ],
    )
    S(
        "borg_passphrase",
        human_pw,
        [
            "borg passphrase (repokey-blake2, repo on the hetzner storagebox): {V}",
            "export BORG_PASSPHRASE='{V}'",
            'borgmatic: encryption_passphrase: "{V}"',
            "Borg-Passphrase fürs Offsite-Repo: {V}",
        ],
    )
    S(
        "rclone_obscured_password",
        lambda: b64u(rng.choice([24, 27, 30])),
        [
            "[nas-sftp]\ntype = sftp\nhost = 192.168.1.5\nuser = backup\npass = {V}",
            "rclone.conf crypt remote: password = {V}",
            "obscured pw from rclone config (rclone reveal undoes it): {V}",
        ],
    )
    S(
        "backblaze_b2_application_key",
        lambda: "K00" + rng.choice("1345") + pick(ALNUM + "/+", 27),
        [
            "B2 app key for restic (keyID 005a1b2c3d4e5f60000000003): {V}",
            "B2_ACCOUNT_KEY={V}",
            "rclone b2 remote: account = 005a1b2c3d4e5f60000000003, key = {V}",
            "backblaze key (bucket lab-restic only): {V}",
        ],
    )
    S(
        "s3_secret_access_key",
        lambda: pick(ALNUM + "/+", 40),
        [
            "wasabi keys for offsite: AKIA-ish id WSBXQ7D2 + secret {V}",
            "AWS_SECRET_ACCESS_KEY={V}",
            "aws_secret_access_key = {V}",
            "garage s3 key for the velero bucket, secret: {V}",
        ],
    )
    S(
        "minio_root_password",
        gen_pw,
        [
            "MINIO_ROOT_USER=minioadmin\nMINIO_ROOT_PASSWORD={V}",
            "minio console login: admin / {V}",
            "mc alias set lab http://192.168.1.30:9000 admin '{V}'",
        ],
    )
    S(
        "gitea_access_token",
        lambda: hexs(40),
        [
            "gitea token for renovate bot: {V}",
            "git clone https://jonas:{V}@git.lan/jonas/homelab.git",
            "forgejo runner registration token: {V}",
            "curl -H 'Authorization: token {V}' https://git.lan/api/v1/user/repos",
        ],
    )
    S(
        "gitlab_personal_access_token",
        lambda: "glpat-" + pick(ALNUM + "_-", 20),
        [
            "self-hosted gitlab PAT (api, read_repository): {V}",
            "GITLAB_TOKEN={V}",
            "git remote set-url origin https://oauth2:{V}@gitlab.lan/lab/ansible.git",
        ],
    )
    S(
        "github_personal_access_token",
        lambda: "ghp_" + pick(ALNUM, 36),
        [
            "github pat for pulling the dotfiles repo on new vms: {V}",
            "GITHUB_TOKEN={V}",
            "watchtower private registry ghcr login: jonas / {V}",
            "echo {V} | docker login ghcr.io -u jonas --password-stdin",
        ],
    )
    S(
        "vaultwarden_admin_token",
        lambda: b64(48),
        [
            "vaultwarden /admin token (plain, before i switch to argon2): {V}",
            "ADMIN_TOKEN={V}",
            "vw admin page pw: {V}",
        ],
    )
    S(
        "password_manager_master_password",
        lambda: "-".join(rng.sample(WORDS, 4)) + str(rng.randrange(10, 99)),
        [
            "my bitwarden master pw in case the agent ever needs to unlock the cli: {V}",
            "bw unlock '{V}' --raw",
            "keepassxc db (lab.kdbx) master passphrase: {V}",
            "Master-Passwort Vaultwarden: {V}",
        ],
    )
    S(
        "openssh_private_key",
        openssh_key,
        [
            "deploy key for ansible -> all lab hosts:\n{V}",
            "id_ed25519 of the backup user on the nas (pulls from the vps):\n{V}",
            "paste from chat, jonas: here is the key for the pi, put it in ~/.ssh/pi\n{V}",
        ],
    )
    S(
        "smb_credentials",
        human_pw,
        [
            "/root/.smbcredentials\nusername=media\npassword={V}",
            "mount -t cifs //nas.lan/media /mnt/media -o username=media,password={V},uid=1000",
            "smb share 'scans' for the printer: user scanner, pw {V}",
            "//192.168.1.5/backup  /mnt/backup  cifs  user=backup,pass={V},vers=3.0  0 0",
        ],
    )
    S(
        "database_url_with_password",
        lambda: (
            gen_pw(18)
            .replace("#", "x")
            .replace("%", "y")
            .replace("^", "z")
            .replace("=", "q")
            .replace("+", "p")
        ),
        [
            "DATABASE_URL=postgresql://immich:{V}@immich-db:5432/immich",
            "paperless: PAPERLESS_DBPASS={V}",
            "nextcloud config.php: 'dbpassword' => '{V}',",
            "psql 'postgres://authentik:{V}@10.0.20.5/authentik?sslmode=disable'",
        ],
    )
    S(
        "mariadb_root_password",
        human_pw,
        [
            "MYSQL_ROOT_PASSWORD={V}",
            "mariadb root on the nextcloud lxc: {V}",
            "mysql -uroot -p'{V}' -e 'show databases;'",
        ],
    )
    S(
        "ddns_update_url_credentials",
        human_pw,
        [
            "no-ip update: https://jonas.lab:{V}@dynupdate.no-ip.com/nic/update?hostname=jonaslab.ddns.net",
            "ddclient.conf:\nprotocol=dyndns2\nserver=members.dyndns.org\nlogin=jonaslab\npassword='{V}'",
            "dynu ip update password: {V}",
        ],
    )
    S(
        "telegram_bot_token",
        lambda: f"{rng.randrange(10**9, 8 * 10**9)}:AA{pick(ALNUM + '_-', 33)}",
        [
            "telegram bot for uptime-kuma alerts, token {V}, chat id 48213377",
            "TELEGRAM_BOT_TOKEN={V}",
            "curl https://api.telegram.org/bot{V}/sendMessage -d chat_id=48213377 -d text=backup_ok",
        ],
    )
    S(
        "discord_webhook_url",
        lambda: (
            f"https://discord.com/api/webhooks/{rng.randrange(10**17, 10**19)}/{pick(ALNUM + '_-', 68)}"
        ),
        [
            "discord webhook for #lab-alerts: {V}",
            "DISCORD_WEBHOOK={V}",
            "watchtower notification url: {V}",
        ],
    )
    S(
        "pushover_app_token",
        lambda: "a" + pick(LOWER_ALNUM, 29),
        [
            "pushover app token (app 'homelab'): {V} user key uQiRzpo4DXghDmr9QzzfQu27cmVRsG",
            "PUSHOVER_TOKEN={V}",
            "apprise: pover://uQiRzpo4DXghDmr9QzzfQu27cmVRsG@{V}",
        ],
    )
    S(
        "ntfy_access_token",
        lambda: "tk_" + pick(LOWER_ALNUM, 29),
        [
            "ntfy token for the backup topic: {V}",
            "curl -H 'Authorization: Bearer {V}' -d 'restic done' https://ntfy.example-home.net/backups",
            "NTFY_TOKEN={V}",
        ],
    )
    S(
        "ipmi_bmc_password",
        gen_pw,
        [
            "supermicro ipmi (192.168.1.250) ADMIN / {V}  -- changed from the sticker pw",
            "ipmitool -I lanplus -H 192.168.1.251 -U root -P '{V}' chassis power status",
            "iDRAC on the r720 now root / {V}",
        ],
    )
    S(
        "zigbee_network_key",
        lambda: "[" + ", ".join(str(b) for b in rbytes(16)) + "]",
        [
            "z2m advanced:\n  network_key: {V}\n  pan_id: 6754",
            "zigbee network key backup (dont regenerate or all devices need re-pairing): {V}",
            "network_key: {V}",
        ],
    )
    S(
        "esphome_api_encryption_key",
        lambda: b64(32),
        [
            'api:\n  encryption:\n    key: "{V}"',
            "esphome noise psk for the garage door node: {V}",
            "HA asks for the encryption key of living-room-sensor: {V}",
        ],
    )
    S(
        "tuya_local_key",
        lambda: pick(ALNUM + "!#$&'()*+,-./:;<=>?@[]^_{|}~", 16),
        [
            "tuya local key for the desk plug (id bf3e9a7c1d2e4f5a6b7c8d): {V}",
            "localtuya: local_key: '{V}'",
            'tinytuya devices.json -> "key": "{V}"',
        ],
    )
    S(
        "influxdb_token",
        lambda: b64(64).replace("/", "_").replace("+", "-"),
        [
            "influx all-access token for telegraf: {V}",
            "INFLUX_TOKEN={V}",
            "influx config create -n lab -u http://192.168.1.40:8086 -o home -t {V}",
        ],
    )
    S(
        "authelia_secret",
        lambda: pick(ALNUM, 64),
        [
            "AUTHELIA_JWT_SECRET={V}",
            "authelia storage encryption_key: {V}",
            "authelia session secret: {V}",
        ],
    )
    S(
        "tls_private_key",
        lambda: pem(rng.choice(["EC PRIVATE KEY", "PRIVATE KEY"]), rng.choice([121, 138])),
        [
            "key for *.example-home.net (from the LE wildcard cert):\n{V}",
            "origin cert private key from cloudflare, saved for npm:\n{V}",
            "privkey.pem of the internal step-ca intermediate:\n{V}",
        ],
    )
    S(
        "k3s_join_token",
        lambda: f"K10{hexs(64)}::server:{hexs(32)}",
        [
            "k3s node token (from /var/lib/rancher/k3s/server/node-token): {V}",
            "curl -sfL https://get.k3s.io | K3S_URL=https://192.168.1.50:6443 K3S_TOKEN={V} sh -",
            "K3S_TOKEN={V}",
        ],
    )
    S(
        "portainer_api_key",
        lambda: "ptr_" + b64u(32),
        [
            "portainer access token for the homepage widget: {V}",
            "curl -H 'X-API-Key: {V}' https://portainer.lan:9443/api/endpoints",
            "PORTAINER_API_KEY={V}",
        ],
    )
    S(
        "smtp_app_password",
        lambda: " ".join(pick(string.ascii_lowercase, 4) for _ in range(4)),
        [
            "gmail app pw for truenas alert mails: {V}",
            "smtp relay for everything (proxmox, nas, vaultwarden): smtp.gmail.com:587 jonas.lab.alerts@gmail.com / {V}",
            'SMTP_PASSWORD="{V}"',
        ],
    )
    S(
        "totp_seed",
        lambda: pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 32),
        [
            "otpauth://totp/Proxmox:root@pam?secret={V}&issuer=Proxmox",
            "2fa seed for the nextcloud admin (backup in case phone dies): {V}",
            "TOTP-Geheimnis fürs Router-Login: {V}",
        ],
    )
    S(
        "zfs_encryption_passphrase",
        human_pw,
        [
            "zfs create -o encryption=on -o keyformat=passphrase tank/private  -> passphrase {V}",
            "tank/secure unlock pass: {V}",
            "luks pass for the offsite usb disk: {V}",
        ],
    )
    S(
        "nas_admin_password",
        human_pw,
        [
            "synology dsm admin (jonas-adm): {V}",
            "truenas root / {V}",
            "unraid root: {V}",
            "QNAP admin wachtwoord: {V}",
        ],
    )

    S(
        "age_secret_key",
        lambda: "AGE-SECRET-KEY-1" + pick("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper(), 58),
        [
            "sops age key for the homelab repo (~/.config/sops/age/keys.txt):\n# public key: age1qyqszqgpqyqszqgpqyqszqgpqyqszqgp\n{V}",
            "SOPS_AGE_KEY={V}",
            "age identity used by the nas to decrypt the backup configs: {V}",
        ],
    )

    # ------------------------------------------------------------------ benign
    B(
        "git_commit_sha",
        lambda: hexs(40),
        [
            "homelab repo: rolled back ansible to {V} after the traefik v3 break",
            "git checkout {V} -- roles/pihole",
            "renovate merged {V} (bump jellyfin to 10.9)",
            "fixed in {V}",
        ],
    )
    B(
        "docker_image_digest",
        lambda: "sha256:" + hexs(64),
        [
            "pinned vaultwarden/server{V}@ because latest broke sso",
            "image: ghcr.io/home-assistant/home-assistant{V}@",
            "digest of the working immich build: {V}",
            "docker pull pihole/pihole{V}@",
        ],
    )
    B(
        "disk_uuid",
        uuid4,
        [
            "UUID={V}  /mnt/data  ext4  defaults,nofail  0 2",
            'blkid /dev/sdb1 -> UUID="{V}" TYPE="xfs"',
            "pve vm 104 smbios uuid {V}",
            "backup usb disk is {V} (udev rule triggers the borg job)",
        ],
    )
    B(
        "zfs_pool_guid",
        lambda: str(rng.randrange(10**18, 18 * 10**18)),
        [
            "zpool import -d /dev/disk/by-id {V} tank",
            "pool guid of tank: {V}",
            "zdb | grep guid -> {V}",
        ],
    )
    B(
        "wireguard_public_key",
        lambda: b64(32),
        [
            "[Peer]\nPublicKey = {V}\nEndpoint = vpn.example-home.net:51820\nAllowedIPs = 10.8.0.0/24",
            "vps wg pubkey (give this to peers): {V}",
            "wg show -> peer: {V} latest handshake: 1 minute ago",
            "Öffentlicher WireGuard-Schlüssel vom Laptop: {V}",
        ],
    )
    B(
        "ssh_public_key",
        lambda: (
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"
            + base64.b64encode(rbytes(32)).decode()[1:]
            + " jonas@laptop"
        ),
        [
            "authorized_keys for the backup user:\n{V}",
            "cloud-init sshkeys for new pve vms: {V}",
            "add my key to gitea: {V}",
            "pubkey: {V}",
        ],
    )
    B(
        "ssh_host_fingerprint",
        lambda: "SHA256:" + b64(32).rstrip("="),
        [
            "nas host key changed after reinstall, new fingerprint ED25519 key {V} -- expected, accepted",
            "ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub -> 256 {V} root@pve1 (ED25519)",
            "vps fingerprint: {V}",
        ],
    )
    B(
        "tls_certificate_pem",
        lambda: pem("CERTIFICATE", rng.choice([540, 612])),
        [
            "internal root CA cert (install on phones so *.lan works):\n{V}",
            "fullchain.pem first block for reference:\n{V}",
            "step-ca root_ca.crt:\n{V}",
        ],
    )
    B(
        "placeholder_token",
        lambda: rng.choice(
            [
                "<your-token>",
                "<CF_API_TOKEN>",
                "YOUR_API_KEY_HERE",
                "<paste token>",
                "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            ]
        ),
        [
            "homepage template: key: {V}  -- fill in per service",
            "HASS_TOKEN={V}",
            "curl -H 'Authorization: Bearer {V}' http://homeassistant.local:8123/api/",
            "tailscale up --authkey={V}",
        ],
    )
    B(
        "changeme_placeholder",
        lambda: rng.choice(["changeme", "CHANGE_ME", "change-this", "password", "secret"]),
        [
            "example compose has POSTGRES_PASSWORD={V} -- replace before first run!",
            "immich .env.sample: DB_PASSWORD={V}",
            "authelia template jwt_secret: {V} (must generate your own)",
        ],
    )
    B(
        "env_var_reference",
        lambda: rng.choice(
            [
                "${RESTIC_PASSWORD}",
                "$CF_DNS_API_TOKEN",
                "${TS_AUTHKEY}",
                "${DB_PASSWORD}",
                "{{ vault_pihole_pw }}",
                "!secret mqtt_password",
            ]
        ),
        [
            "compose: environment: - PASSWORD={V}",
            "password: {V}",
            'ansible var: pihole_password: "{V}"',
            "token comes from {V} (set in .env, not committed)",
        ],
    )
    B(
        "password_manager_reference",
        lambda: rng.choice(
            ["Homelab/Proxmox root", "Network/Fritzbox", "Backups/restic b2", "IoT/Tuya keys"]
        ),
        [
            "proxmox root pw is in vaultwarden under '{V}'",
            "don't store creds here, look in bitwarden: {V}",
            "Passwort steht in KeePassXC unter {V}",
            "rclone creds: see vaultwarden entry {V}",
        ],
    )
    B(
        "masked_token",
        lambda: rng.choice(["ghp_", "glpat-", "tskey-auth-", "tk_"]) + "****" + pick(ALNUM, 4),
        [
            "gitea shows the token only once; list view shows {V}",
            "log line: using token {V} for api",
            "old key {V} deleted from the admin console",
        ],
    )
    B(
        "redacted_value",
        lambda: rng.choice(["[REDACTED]", "********", "<redacted>", "***"]),
        [
            "pasted ddclient.conf: password={V}",
            "restic error log: RESTIC_PASSWORD={V} repository does not exist",
            "fritzbox support dump: WLAN-Key: {V}",
        ],
    )
    B(
        "aws_documented_example_key",
        lambda: rng.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "rclone docs sample for s3 uses {V} -- don't copy that literally",
            "aws cli docs example: {V}",
            "placeholder from the minio docs: {V}",
        ],
    )
    B(
        "mac_address",
        lambda: ":".join(pick(HEX, 2) for _ in range(6)),
        [
            "static dhcp lease: {V} -> 192.168.1.20 (mqtt)",
            "wake on lan: wakeonlan {V}",
            "shelly plug mac {V}, put it in iot vlan",
            "| nas | {V} | 192.168.1.5 |",
        ],
    )
    B(
        "hardware_serial_number",
        lambda: (
            rng.choice(["WD-WX", "ZL", "S4EWNX0"])
            + pick(string.ascii_uppercase + string.digits, 10)
        ),
        [
            "failed disk in tank mirror-1: serial {V} -- RMA opened",
            "smartctl -i /dev/sdc | grep Serial -> {V}",
            "NAS Seriennummer für Garantie: {V}",
        ],
    )
    B(
        "tailscale_node_public_key",
        lambda: "nodekey:" + hexs(64),
        [
            "tailscale status --json -> PublicKey {V} for the exit node",
            "node key of the pi after re-auth: {V}",
            "ts admin shows {V} expiring in 12 days, disable key expiry",
        ],
    )
    B(
        "cloudflare_zone_or_account_id",
        lambda: hexs(32),
        [
            "cloudflare zone id for example-home.net: {V}",
            "CF_ZONE_ID={V}",
            "account id (needed for tunnel create): {V}",
            'terraform: zone_id = "{V}"',
        ],
    )
    B(
        "plex_machine_identifier",
        lambda: hexs(40),
        [
            "plex server machineIdentifier: {V}",
            "plex clientIdentifier of the shield: {V}",
            "kometa config: plex server id {V}",
        ],
    )
    B(
        "docker_container_id",
        lambda: hexs(rng.choice([12, 64])),
        [
            "docker logs {V} | tail   (the crashing nextcloud cron)",
            "container {V} keeps restarting after the update",
            "docker exec -it {V} sh",
        ],
    )
    B(
        "restic_snapshot_id",
        lambda: hexs(8),
        [
            "restic restore {V} --target /tmp/restore --include /srv/hass",
            "last good snapshot of the hass config: {V}",
            "restic forget {V} (broken partial from power cut)",
        ],
    )
    B(
        "borg_repo_id",
        lambda: hexs(64),
        [
            "borg info -> Repository ID: {V}",
            "storagebox repo id {V} (same repo, moved path)",
            "borg cache for repo {V} is 4 GB, clear it",
        ],
    )
    B(
        "argon2_hash",
        lambda: f"$argon2id$v=19$m=65540,t=3,p=4${b64(16).rstrip('=')}${b64(32).rstrip('=')}",
        [
            "vaultwarden ADMIN_TOKEN now stored as argon2 PHC string: {V}",
            "ADMIN_TOKEN='{V}'",
            'authelia users_database.yml password: "{V}"',
        ],
    )
    B(
        "htpasswd_bcrypt_hash",
        lambda: "$2y$05$" + pick(ALNUM + "./", 53),
        [
            'traefik basicauth users: - "jonas:{V}"',
            "htpasswd -nbB output for the dashboard user: jonas:{V}",
            "caddy basicauth hash: {V}",
        ],
    )
    B(
        "iso_checksum",
        lambda: hexs(64),
        [
            "proxmox-ve_8.2-1.iso sha256 {V} -- matches website",
            "sha256sum truenas-scale.iso -> {V}",
            "checksum: sha256:{V}  (packer iso_checksum)",
        ],
    )
    B(
        "gpg_fingerprint",
        lambda: " ".join(pick(HEX.upper(), 4) for _ in range(10)),
        [
            "borg release signing key fingerprint: {V}",
            "gitea signing key: {V}",
            "verified the restic binary, key {V}",
        ],
    )
    B(
        "acme_challenge_txt_value",
        lambda: b64u(32),
        [
            'dig TXT _acme-challenge.example-home.net -> "{V}" (propagated, LE can validate)',
            '_acme-challenge.nc.example-home.net. 120 IN TXT "{V}"',
            "manual dns-01: put {V} in the txt record and press enter",
        ],
    )
    B(
        "dkim_public_key",
        lambda: "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64(180),
        [
            'dkim record for mail.example-home.net: mail._domainkey TXT "{V}"',
            "TXT record to add at cloudflare: {V}",
        ],
    )
    B(
        "turnstile_site_key",
        lambda: "0x4AAAAAAA" + pick(ALNUM + "_-", 12),
        [
            "turnstile sitekey for the vaultwarden signup page (public, goes in html): {V}",
            'data-sitekey="{V}"',
            "cloudflare turnstile site key {V} (secret key is in vaultwarden)",
        ],
    )
    B(
        "proxmox_token_id_without_secret",
        lambda: (
            rng.choice(["root@pam!", "api@pve!", "terraform@pve!"])
            + pick(string.ascii_lowercase, 6)
        ),
        [
            "token id {V} has privsep on; permissions on /vms only",
            "pveum user token list -> {V}",
            "revoke {V} when done with the migration",
        ],
    )
    B(
        "jellyfin_item_id",
        lambda: hexs(32),
        [
            "jellyfin item id of the broken movie: {V}",
            "http://jellyfin.lan:8096/web/index.html#!/details?id={V}",
            "jellyfin user id for jonas: {V}",
        ],
    )
    B(
        "zigbee_ieee_address",
        lambda: "0x" + hexs(16),
        [
            "aqara door sensor {V} keeps dropping, move router closer",
            "friendly_name for {V}: kitchen_motion",
            "'{V}':\n    friendly_name: bathroom_temp",
        ],
    )
    B(
        "expired_totp_code",
        lambda: f"{rng.randrange(10**6):06d}",
        [
            "the 2fa code was {V} but it expired before i pasted it",
            "gitea asked for otp, entered {V}, worked (one-time, already used)",
            "HA mfa prompt showed error for code {V}",
        ],
    )
    B(
        "password_policy_text",
        lambda: str(rng.randrange(12, 25)),
        [
            "rule for the lab: every service gets its own pw, min {V} chars, generated by bitwarden",
            "vaultwarden org policy: master password min length {V}, require 2FA",
            "Richtlinie: Passwörter mindestens {V} Zeichen, nie wiederverwenden",
        ],
    )
    B(
        "password_generator_command",
        lambda: str(rng.choice([24, 32, 48, 64])),
        [
            "generate admin token: openssl rand -base64 {V}",
            "new restic pw: pwgen -s {V} 1 (then save in vault, not here)",
            "tr -dc A-Za-z0-9 </dev/urandom | head -c {V}; echo",
        ],
    )
    B(
        "revoked_tailscale_auth_key",
        lambda: ts_key("auth"),
        [
            "REVOKED 2026-11-30 (leaked in a screenshot): {V} -- revoked in admin console, new one in vaultwarden",
            "old one-off auth key {V} was used once and has expired; it is revoked now",
        ],
    )
    B(
        "documented_factory_default_login",
        lambda: rng.choice(
            [
                "admin@example.com / changeme",
                "ubnt / ubnt",
                "root / calvin",
                "pi / raspberry",
                "ADMIN / ADMIN",
            ]
        ),
        [
            "factory default for this device family is {V} -- changed on first login",
            "npm/unifi/idrac docs default login: {V} (not in use anywhere here)",
            "reminder: default creds {V} are documented publicly, never leave them",
        ],
    )
    B(
        "compose_secret_file_reference",
        lambda: rng.choice(
            [
                "./secrets/db_password.txt",
                "/run/secrets/restic_pw",
                "/etc/restic/password",
                "~/.config/rclone/rclone.conf",
            ]
        ),
        [
            "secrets:\n  db_password:\n    file: {V}",
            "RESTIC_PASSWORD_FILE={V}",
            "password is read from {V} (chmod 600, not in git)",
        ],
    )
    B(
        "nextcloud_instance_id",
        lambda: "oc" + pick(LOWER_ALNUM, 10),
        [
            "nextcloud 'instanceid' => '{V}' (appdata_{V} folder)",
            "appdata folder is appdata_{V}",
        ],
    )
    B(
        "tls_certificate_serial",
        lambda: ":".join(pick(HEX.upper(), 2) for _ in range(16)),
        [
            "LE cert serial for *.example-home.net: {V}, expires in 60d",
            "openssl x509 -noout -serial -> serial={V}",
        ],
    )
    B(
        "private_ip_address",
        lambda: f"192.168.{rng.randrange(1, 60)}.{rng.randrange(2, 254)}",
        [
            "pihole lives at {V}, secondary on the second pi",
            "jellyfin lxc ip {V} port 8096",
            "| homeassistant | {V} | 8123 |",
        ],
    )
    B(
        "env_example_template",
        lambda: rng.choice(["", "''", '""']),
        [
            ".env.example:\nCF_DNS_API_TOKEN={V}\nACME_EMAIL=you@example.com",
            "template for new hosts -> RESTIC_PASSWORD={V} (filled in by ansible from vault)",
        ],
    )
    B(
        "public_test_broker_credentials",
        lambda: rng.choice(["rw / readwrite", "ro / readonly", "wo / writeonly"]),
        [
            "tested the esp with test.mosquitto.org:1884 using the public test creds {V} (documented on the site)",
            "public mosquitto test server, user/pass {V}, never for real data",
        ],
    )
    B(
        "tailnet_name",
        lambda: f"tail{hexs(4)}.ts.net",
        [
            "magicdns: jellyfin.{V}",
            "tailnet is {V}, https certs via tailscale cert",
            "ssh pi@pihole.{V}",
        ],
    )
    B(
        "base64_nonsecret_config",
        lambda: base64.b64encode(
            f"hostname: lab-{pick(LOWER_ALNUM, 5)}\ntimezone: Europe/Berlin\n".encode()
        ).decode(),
        [
            "configmap data (base64, just hostname+tz): {V}",
            "cloud-init user-data b64 blob (no creds, only tz): {V}",
        ],
    )
    B(
        "ha_entity_and_device_id",
        lambda: hexs(32),
        [
            "HA device_id of the hallway motion sensor for the automation: {V}",
            "automation trigger: device_id: {V}",
            "HA config_entry id of the zha integration: {V}",
        ],
    )
    # new benign kinds
    B(
        "letsencrypt_account_url",
        lambda: f"https://acme-v02.api.letsencrypt.org/acme/acct/{rng.randrange(10**8, 3 * 10**9)}",
        [
            "traefik acme.json account uri: {V}",
            "certbot registered, account {V}",
            "LE account for the wildcard: {V} (key lives in acme.json, not here)",
        ],
    )
    B(
        "docker_volume_name",
        lambda: hexs(64),
        [
            "dangling anonymous volume {V} is 30GB, probably old postgres",
            "docker volume rm {V}",
            "docker volume ls -> local     {V}",
        ],
    )
    B(
        "tailscale_ip",
        lambda: f"100.{rng.randrange(64, 128)}.{rng.randrange(0, 256)}.{rng.randrange(1, 255)}",
        [
            "pve1 tailscale ip {V}",
            "exit node is the pi at {V}",
            "| jellyfin | {V} | tailnet only |",
        ],
    )
    B(
        "jwt_documented_example",
        lambda: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            "HA token looks like the jwt.io sample, e.g. {V} (that one is the public example, not ours)",
            "example bearer from the docs: {V}",
        ],
    )
    B(
        "pbs_certificate_fingerprint",
        lambda: ":".join(pick(HEX, 2) for _ in range(32)),
        [
            "pbs datastore in pve storage.cfg: fingerprint {V}",
            "proxmox-backup-manager cert info | grep Fingerprint -> {V}",
            "PBS fingerprint (needed when adding storage, it's the cert hash, not a secret): {V}",
        ],
    )
    B(
        "rclone_crypt_filename",
        lambda: pick("abcdefghijklmnopqrstuv0123456789", rng.choice([26, 32, 52])),
        [
            "b2 bucket listing shows crypt names like {V}/ -- that's the photos folder",
            "rclone crypt encoded dir name {V} = 'documents'",
            "rclone cryptdecode secret: {V}",
        ],
    )
    B(
        "syncthing_device_id",
        lambda: "-".join(pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 7) for _ in range(8)),
        [
            "syncthing device id of the nas: {V}",
            "add phone as device: {V}",
            "Syncthing Geräte-ID vom Laptop: {V}",
            "introducer device {V} (share 'obsidian')",
        ],
    )
    B(
        "age_public_key",
        lambda: "age1" + pick("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
        [
            ".sops.yaml creation_rules: - age: {V}",
            "recipient for the backup tarballs: age -r {V} -o cfg.tar.age cfg.tar",
            "nas age pubkey: {V}",
        ],
    )
    B(
        "config_file_md5",
        lambda: hexs(32),
        [
            "md5 of configuration.yaml before the refactor: {V}",
            "md5sum docker-compose.yml -> {V}",
            "etag of the config in the bucket: {V}",
        ],
    )
    # more phrasings for existing benign kinds
    B(
        "placeholder_token",
        lambda: rng.choice(["<your-token>", "YOUR_DUCKDNS_TOKEN", "<token>", "REPLACE_ME"]),
        [
            "curl 'https://www.duckdns.org/update?domains=jonaslab&token={V}&ip='",
            "wg template: PrivateKey = {V}",
        ],
    )
    B(
        "changeme_placeholder",
        lambda: rng.choice(["changeme", "changeme123", "CHANGE_ME"]),
        [
            "MYSQL_ROOT_PASSWORD={V}   # from the upstream example, real one is in .env",
        ],
    )
    B(
        "env_var_reference",
        lambda: rng.choice(["${PLEX_TOKEN}", "$JELLYFIN_API_KEY", "${env:HASS_TOKEN}"]),
        [
            "curl 'http://plex.lan:32400/identity?X-Plex-Token={V}'",
        ],
    )
    B(
        "password_manager_reference",
        lambda: rng.choice(
            ["op://Homelab/Proxmox/password", "bw get password nas-admin", "pass show lab/mqtt"]
        ),
        [
            "script fetches the pw at runtime via `{V}` -- nothing stored in the repo",
        ],
    )
    B(
        "masked_token",
        lambda: pick(ALNUM, 4) + "…" + pick(ALNUM, 4),
        [
            "cloudflare dashboard shows token {V} (only first/last 4), last used today",
        ],
    )
    B(
        "redacted_value",
        lambda: rng.choice(["XXXXXXXX", "<hidden>", "[secret]"]),
        [
            "screenshot for reddit: TS_AUTHKEY={V}",
        ],
    )
    B(
        "wireguard_public_key",
        lambda: b64(32),
        [
            "wg genkey | tee priv | wg pubkey -> pub for the phone: {V} (priv stays on the phone)",
        ],
    )
    B(
        "mac_address",
        lambda: "-".join(pick(HEX.upper(), 2) for _ in range(6)),
        [
            "DHCP-Reservierung für den Drucker: {V}",
        ],
    )
    B(
        "tls_certificate_pem",
        lambda: pem("CERTIFICATE", 480),
        [
            "cloudflare origin CA root (public) for authenticated origin pulls:\n{V}",
        ],
    )
    B(
        "iso_checksum",
        lambda: hexs(40),
        [
            "sha1 of the openwrt sysupgrade image: {V}",
        ],
    )
    B(
        "docker_image_digest",
        lambda: "sha256:" + hexs(64),
        [
            "watchtower updated jellyfin: new image {V}",
        ],
    )
    B(
        "git_commit_sha",
        lambda: hexs(7),
        [
            "regressed somewhere after {V}, bisecting the compose changes",
        ],
    )
    B(
        "acme_challenge_txt_value",
        lambda: b64u(32),
        [
            "certbot manual: Please deploy a DNS TXT record under the name _acme-challenge.example-home.net with the following value: {V}",
        ],
    )
    B(
        "argon2_hash",
        lambda: f"$argon2id$v=19$m=19456,t=2,p=1${b64(16).rstrip('=')}${b64(32).rstrip('=')}",
        [
            "vaultwarden hash --preset owasp gave: {V}",
        ],
    )
    B(
        "zigbee_ieee_address",
        lambda: ":".join(pick(HEX, 2) for _ in range(8)),
        [
            "ZHA device ieee {V} is the hue bulb in the office",
        ],
    )
    B(
        "password_policy_text",
        lambda: str(rng.randrange(8, 20)),
        [
            "router only allows wifi keys up to 63 chars; our rule: at least {V} random chars for psk",
        ],
    )
    B(
        "password_generator_command",
        lambda: str(rng.choice([16, 20, 40])),
        [
            "bw generate -ulns --length {V}",
        ],
    )
    B(
        "documented_factory_default_login",
        lambda: rng.choice(["admin / admin", "admin / password", "admin / 1234"]),
        [
            "cheap ip cam ships with {V}, firmware forces change on first login",
        ],
    )
    B(
        "compose_secret_file_reference",
        lambda: rng.choice(["/run/secrets/cf_token", "/mnt/secrets/borg.pass"]),
        [
            "CF_DNS_API_TOKEN_FILE={V}",
        ],
    )
    B(
        "private_ip_address",
        lambda: f"10.{rng.randrange(0, 50)}.{rng.randrange(0, 50)}.{rng.randrange(2, 254)}",
        [
            "iot vlan 30 gateway {V}",
        ],
    )
    B(
        "tailnet_name",
        lambda: f"{pick(string.ascii_lowercase, 6)}-{pick(string.ascii_lowercase, 5)}.ts.net",
        [
            "new tailnet dns name after rename: {V}",
        ],
    )
    B(
        "ha_entity_and_device_id",
        lambda: uuid4().replace("-", ""),
        [
            "HA area id / unique_id for the template sensor: {V}",
        ],
    )
    B(
        "expired_totp_code",
        lambda: f"{rng.randrange(10**6):06d}",
        [
            "Le code 2FA {V} a expiré, j'en ai demandé un autre",
        ],
    )
    B(
        "proxmox_token_id_without_secret",
        lambda: "monitoring@pve!" + pick(string.ascii_lowercase, 5),
        [
            "pve exporter uses token name {V}; value in vault",
        ],
    )
    B(
        "cloudflare_zone_or_account_id",
        lambda: hexs(32),
        [
            "cloudflared account tag {V} (credentials json is separate, not pasted here)",
        ],
    )
    B(
        "dkim_public_key",
        lambda: "v=DKIM1; k=ed25519; p=" + b64(32),
        [
            "ed25519 dkim txt: {V}",
        ],
    )
    return rows


def main() -> None:
    out = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
