# ruff: noqa: E501
"""Blind secret-detector corpus 55: embedded Linux and Android device developers.

Brief: adb and fastboot, platform and APK signing keys and keystores, OTA update servers and
their signing keys, Yocto and Buildroot builds, U-Boot and bootloader passwords, factory
provisioning of device certificates and keys, secure-boot fuses, device cloud registration
tokens, serial consoles and root passwords, and the serial numbers, IMEIs, build fingerprints,
hashes and public keys that look like secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_55.py OUT.jsonl   (or without an argument to print JSONL to stdout)

Kinds, secret: keystore_storepass, keystore_keypass, gradle_signing_props, platform_pk8_pem,
apksigner_pass, pepk_encryption_pass, ota_signing_key_pass, ota_server_api_token,
ota_hmac_secret, swupdate_aes_key, rauc_key_pass, mender_tenant_token, uboot_bootdelay_password,
uboot_sha256_password_plain, grub_password_plain, root_password_shadow_plain, yocto_extra_users_plain,
buildroot_root_passwd, serial_console_login, adb_auth_private_key, ssh_private_key_device,
factory_device_private_key, provisioning_api_key, aws_iot_private_key, azure_dps_symmetric_key,
azure_iot_connection_string, device_registration_token, firebase_server_key, gcp_service_account_key,
hab_srk_key_pass, secure_boot_aes_otp_key, efuse_flash_encryption_key, tpm_owner_password,
wifi_psk_provisioning, mqtt_broker_password, jfrog_artifactory_token, github_pat_ci,
gitlab_runner_token, sstate_mirror_s3_secret, docker_registry_password, play_console_json_key,
keybox_attestation_key, widevine_keybox_hex, dm_verity_avb_key_pass, fastboot_unlock_token_secret,
hw_debug_jtag_password, ci_npm_token, slack_webhook_build, sentry_auth_token, vpn_preshared_key,
basic_auth_url_mirror, openssl_enc_pass, gpg_signing_passphrase, tuf_root_key_json, balena_api_key,
particle_access_token, golioth_psk, thingsboard_device_token, hawkbit_gateway_token,
memfault_project_key_secret, bitbucket_app_password, telnet_backdoor_password, uboot_env_ethaddr_secret_combo,
adb_relay_shared_secret.

Kinds, benign: apk_cert_sha256_fingerprint, build_fingerprint, android_serial_number, imei, meid,
mac_address, adb_pubkey, ssh_public_key, ssh_host_key_fingerprint, x509_public_cert_pem,
avb_public_key_hash, hab_srk_table_hash, efuse_srk_hash_fuse_values, ota_payload_sha256,
yocto_srcrev, buildroot_hash_file, sstate_signature_hash, git_commit_sha, keystore_path_only,
gradle_signing_env_reference, placeholder_password, vault_reference, redacted_password,
revoked_token_stated, uboot_env_dump_no_secret, root_password_hash_shadow, debug_fs_empty_password_policy,
fastboot_unlock_data_blob, device_uuid, iccid, icc_cpu_serial, widevine_system_id, keymaster_key_id,
avb_rollback_index, secure_boot_fuse_map_doc, ota_manifest_version_hash, docker_image_digest,
npm_integrity_sha512, pgp_public_key_fingerprint, uuid_boot_partition, dtb_checksum,
firebase_web_api_key_public, aws_iot_endpoint, azure_dps_id_scope, mender_artifact_checksum,
hawkbit_controller_id, lorawan_dev_eui, bluetooth_irk_doc, ble_uuid_service, crc32_and_md5,
tpm_ek_public, sepolicy_hash, test_key_aosp_public, discussion_of_keys, keyboard_key_codes,
token_in_other_sense, password_policy_text, example_in_docs, tuf_public_root_keyid, rauc_cert_public,
jwt_public_jwks, expired_otp_code, pin_hint_without_value, serial_console_baud, kernel_cmdline, wifi_ssid_only, ed25519_public_key_hex,
keystore_alias_and_sha1, apple_team_id_like, csr_pem, fcm_sender_id, hash_of_keystore_password.
"""

import json
import random
import string
import sys

SEED = 5555

HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
URLSAFE = string.ascii_letters + string.digits + "-_"
ALNUM = string.ascii_letters + string.digits


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def s(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def hx(n):
        return s(HEX, n)

    def HX(n):
        return s("0123456789ABCDEF", n)

    def b64(nbytes):
        raw = s(B64, ((nbytes + 2) // 3) * 4)
        pad = (3 - nbytes % 3) % 3
        return raw[: len(raw) - pad] + "=" * pad if pad else raw

    def pw():
        words = ["Falcon", "Orbit", "Kiwi", "Copper", "Nimbus", "Tundra", "Quartz", "Vesper"]
        return rng.choice(words) + s(string.digits, 2) + rng.choice("!#%&*@$") + s(ALNUM, 6)

    def pw2():
        return s(ALNUM + "!@#%^*", rng.randint(12, 18))

    def pem(kind="PRIVATE KEY", lines=4):
        body = "\n".join(s(B64, 64) for _ in range(lines))
        return f"-----BEGIN {kind}-----\n{body}\n{s(B64, 20)}==\n-----END {kind}-----"

    def imei():
        return s(string.digits, 15)

    def mac():
        return ":".join(HX(2) for _ in range(6))

    def uuid():
        return f"{hx(8)}-{hx(4)}-4{hx(3)}-{rng.choice('89ab')}{hx(3)}-{hx(12)}"

    def fp_colon(n=32):
        return ":".join(HX(2) for _ in range(n))

    rows = []

    def add(label, kind, gen, templates):
        for t in templates:
            v = gen()
            rows.append(
                {
                    "label": label,
                    "kind": kind,
                    "text": t.replace("{{", "{").replace("}}", "}").replace("{v}", v),
                    "value": v,
                }
            )

    S, B = "secret", "benign"

    # ----------------------------------------------------------------- secrets
    add(
        S,
        "keystore_storepass",
        pw,
        [
            "release.jks storePassword is {v} — keep it out of the repo, Jenkins has it too",
            "keytool -list -v -keystore upload-keystore.jks -storepass {v}",
            "Reminder for the handover: the kiosk app keystore (kiosk-release.keystore) opens with {v}",
        ],
    )
    add(
        S,
        "keystore_keypass",
        pw2,
        [
            "alias 'upload' key password: {v} (store password is different, ask Priya)",
            "jarsigner -keystore vendor.jks -keypass {v} app-unsigned.apk vendor",
            "keyPassword={v}\nkeyAlias=tablet-release",
        ],
    )
    add(
        S,
        "gradle_signing_props",
        pw,
        [
            "signingConfigs { release { storeFile file('rel.jks'); storePassword '{v}'; keyAlias 'rel' } }",
            "~/.gradle/gradle.properties on the build box:\nRELEASE_STORE_PASSWORD={v}",
            "In keystore.properties we committed by mistake: storePassword={v} — rotate before GA",
        ],
    )
    add(
        S,
        "platform_pk8_pem",
        lambda: pem("PRIVATE KEY", 4),
        [
            "platform.pk8 converted to PEM so the vendor can sign the system app:\n{v}",
            "openssl pkcs8 -inform DER -nocrypt -in platform.pk8 output:\n{v}",
            "releasekey for the car head unit (do not lose):\n{v}",
        ],
    )
    add(
        S,
        "apksigner_pass",
        pw2,
        [
            "apksigner sign --ks platform.jks --ks-pass pass:{v} --ks-key-alias platform out.apk",
            "apksigner ... --key-pass pass:{v} worked, the env: variant did not on the mac mini",
            "signing step in CI: KS_PASS='{v}' apksigner sign --ks-pass env:KS_PASS",
        ],
    )
    add(
        S,
        "pepk_encryption_pass",
        pw,
        [
            "java -jar pepk.jar --keystore=legacy.jks --alias=key0 --output=out.zip --keystore-pass={v}",
            "For Play App Signing migration, the legacy keystore pass was {v}, key pass is the same",
            "pepk export done. legacy keystore pw = {v}",
        ],
    )
    add(
        S,
        "ota_signing_key_pass",
        pw2,
        [
            "ANDROID_PW_FILE contents for sign_target_files_apks: [[[ {v} ]]] build/make/target/product/security/releasekey",
            "ota_from_target_files asks for the releasekey passphrase: {v}",
            "Encrypted OTA signing keys in vendor/keys; the shared passphrase is {v}",
        ],
    )
    add(
        S,
        "ota_server_api_token",
        lambda: "ota_" + s(ALNUM, 40),
        [
            "OTA console upload token for the fleet: {v}",
            "curl -H 'Authorization: Bearer {v}' https://ota.example-devices.net/api/v2/releases",
            "Release script needs OTA_UPLOAD_TOKEN={v} exported before ./publish.sh",
        ],
    )
    add(
        S,
        "ota_hmac_secret",
        lambda: hx(64),
        [
            "Update server verifies manifest HMAC-SHA256 with shared secret {v}",
            "ota-server.yaml:\n  manifest_hmac_key: {v}",
            "The devices compute HMAC over the update URL with key {v} baked into /etc/ota.conf",
        ],
    )
    add(
        S,
        "swupdate_aes_key",
        lambda: hx(64),
        [
            "swupdate encrypted images: aes key {v} iv 00000000000000000000000000000000",
            "The AES-256 key file for swupdate -K is a single line: {v} followed by the IV",
            "encryption key for .swu artifacts (prod): {v}",
        ],
    )
    add(
        S,
        "rauc_key_pass",
        pw2,
        [
            "rauc bundle --cert=prod.cert.pem --key=prod.key.pem; key passphrase is {v}",
            "RAUC_KEY_PASSPHRASE={v} set in the bitbake env for meta-rauc signing",
            "the rauc development key is encrypted, the pass: {v}",
        ],
    )
    add(
        S,
        "mender_tenant_token",
        lambda: "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9." + s(URLSAFE, 120) + "." + s(URLSAFE, 86),
        [
            'MENDER_TENANT_TOKEN = "{v}"',
            'local.conf for the hosted Mender tenant:\nMENDER_TENANT_TOKEN = "{v}"',
            "mender.conf TenantToken: {v}",
        ],
    )
    add(
        S,
        "uboot_bootdelay_password",
        pw,
        [
            "U-Boot autoboot stop string on the field units is {v} (CONFIG_AUTOBOOT_STOP_STR)",
            "To get a U-Boot prompt on rev C boards type {v} within 3 s",
            'CONFIG_AUTOBOOT_STOP_STR="{v}"',
        ],
    )
    add(
        S,
        "uboot_sha256_password_plain",
        pw2,
        [
            "plain text for CONFIG_AUTOBOOT_STOP_STR_SHA256 is {v}, the hash is in the defconfig",
            "bootloader password (what you type at 'Enter password'): {v}",
            "Note to self: the u-boot console pw on the gateway = {v}",
        ],
    )
    add(
        S,
        "grub_password_plain",
        pw,
        [
            "grub superuser 'admin' password is {v}; hash generated with grub-mkpasswd-pbkdf2",
            "If GRUB asks for credentials on the x86 box, user root, password {v}",
            "GRUB edit lock: admin / {v}",
        ],
    )
    add(
        S,
        "root_password_shadow_plain",
        pw2,
        [
            "root password on the dev images: {v}",
            "ssh root@10.20.0.14  password {v}  (lab unit, not the prod image)",
            "passwd for root on the HMI panel was reset to {v} yesterday",
        ],
    )
    add(
        S,
        "yocto_extra_users_plain",
        pw,
        [
            'EXTRA_USERS_PARAMS = "usermod -p $(openssl passwd -6 {v}) root;"',
            "In our image bbappend the service user gets password {v} via useradd -P",
            'EXTRA_USERS_PARAMS += "useradd -P {v} installer;"',
        ],
    )
    add(
        S,
        "buildroot_root_passwd",
        pw2,
        [
            'BR2_TARGET_GENERIC_ROOT_PASSWD="{v}"',
            "Buildroot defconfig for the kiosk sets root passwd to {v} — that ships!",
            "make menuconfig > System configuration > Root password = {v}",
        ],
    )
    add(
        S,
        "serial_console_login",
        pw,
        [
            "Serial console (ttyS0 115200 8N1): login maint, password {v}",
            "On the UART header J7 you get a getty; creds support/{v}",
            "minicom -D /dev/ttyUSB0, then log in as root with {v}",
        ],
    )
    add(
        S,
        "adb_auth_private_key",
        lambda: pem("PRIVATE KEY", 3),
        [
            "~/.android/adbkey from the factory test station:\n{v}",
            "Copy this adbkey onto the new station so the locked devices still trust it:\n{v}",
            "adbkey (private half):\n{v}",
        ],
    )
    add(
        S,
        "ssh_private_key_device",
        lambda: (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
            + s(B64, 70)
            + "\n"
            + s(B64, 70)
            + "\n"
            + s(B64, 40)
            + "\n-----END OPENSSH PRIVATE KEY-----"
        ),
        [
            "maintenance key baked into the rootfs /root/.ssh/id_ed25519:\n{v}",
            "Field service ssh key for the chargers:\n{v}",
            "id_ed25519 from the CI deploy user:\n{v}",
        ],
    )
    add(
        S,
        "factory_device_private_key",
        lambda: pem("EC PRIVATE KEY", 3),
        [
            "Device 0042 identity key written to /factory/device.key during provisioning:\n{v}",
            "Factory station dumped this per-device key in the log (bug!):\n{v}",
            "key.pem for test unit SN A7-00193:\n{v}",
        ],
    )
    add(
        S,
        "provisioning_api_key",
        lambda: "prov_live_" + s(ALNUM, 32),
        [
            "Factory provisioning service API key: {v}",
            "PROVISION_API_KEY={v} in the line-station .env",
            "The EOL tester posts CSRs with header X-Api-Key: {v}",
        ],
    )
    add(
        S,
        "aws_iot_private_key",
        lambda: pem("RSA PRIVATE KEY", 4),
        [
            "AWS IoT thing gw-17 private.pem.key:\n{v}",
            "certs/private.key for the demo thing:\n{v}",
            "Greengrass core private key (do not commit):\n{v}",
        ],
    )
    add(
        S,
        "azure_dps_symmetric_key",
        lambda: b64(64),
        [
            "DPS enrollment group primary key: {v}",
            "derive device keys with HMAC of registration id using group key {v}",
            'az iot dps enrollment-group show ... primaryKey "{v}"',
        ],
    )
    add(
        S,
        "azure_iot_connection_string",
        lambda: b64(32),
        [
            "HostName=fleet-hub.azure-devices.net;DeviceId=dev-88;SharedAccessKey={v}",
            "connection string for the iothubowner policy: HostName=prodhub.azure-devices.net;SharedAccessKeyName=iothubowner;SharedAccessKey={v}",
            'IOTHUB_DEVICE_CONNECTION_STRING="HostName=lab.azure-devices.net;DeviceId=bench2;SharedAccessKey={v}"',
        ],
    )
    add(
        S,
        "device_registration_token",
        lambda: "drt_" + s(URLSAFE, 43),
        [
            "Cloud registration token for the pilot batch (valid 30 days): {v}",
            "devices claim themselves with REG_TOKEN={v}",
            'registration: POST /v1/claim {{"token": "{v}"}}',
        ],
    )
    add(
        S,
        "firebase_server_key",
        lambda: "AAAA" + s(URLSAFE, 7) + ":APA91b" + s(URLSAFE, 134),
        [
            "FCM legacy server key for push to the tablets: {v}",
            "Authorization: key={v}",
            "fcm_server_key: {v}",
        ],
    )
    add(
        S,
        "gcp_service_account_key",
        lambda: (
            "-----BEGIN PRIVATE KEY-----\\n"
            + s(B64, 64)
            + "\\n"
            + s(B64, 64)
            + "\\n-----END PRIVATE KEY-----\\n"
        ),
        [
            'play-publisher.json excerpt: "private_key": "{v}"',
            "service account for uploading to Play internal track, private_key {v}",
            '"type": "service_account", "private_key_id": "9c1f", "private_key": "{v}"',
        ],
    )
    add(
        S,
        "hab_srk_key_pass",
        pw,
        [
            "HAB CST key_pass.txt (both lines): {v}",
            "The i.MX8 SRK PKI was generated with passphrase {v}",
            "cst signing needs the CSF key pass: {v}",
        ],
    )
    add(
        S,
        "secure_boot_aes_otp_key",
        lambda: hx(64),
        [
            "OTP image encryption key for the STM32MP1 (burn once!): {v}",
            "Zynq bbram/efuse AES key for the bitstream: key 0 {v}",
            "Key file for bootgen: Key 0 {v}",
        ],
    )
    add(
        S,
        "efuse_flash_encryption_key",
        lambda: hx(64),
        [
            "ESP32 flash encryption key we burned on the dev boards (espefuse burn_key flash_encryption key.bin): {v}",
            "espsecure.py generated my_flash_encryption_key.bin = {v}",
            "BLOCK_KEY0 XTS_AES_128 key (hex): {v}",
        ],
    )
    add(
        S,
        "tpm_owner_password",
        pw2,
        [
            "tpm2_changeauth -c owner {v}",
            "TPM owner hierarchy auth on the gateways: {v}",
            "tpm2_createprimary -C o -P {v} -c primary.ctx",
        ],
    )
    add(
        S,
        "wifi_psk_provisioning",
        pw,
        [
            "Factory floor Wi-Fi for provisioning: SSID LINE3-PROV psk {v}",
            'wpa_supplicant.conf on the image: network={{ ssid="lab" psk="{v}" }}',
            "nmcli dev wifi connect FW-TEST password {v}",
        ],
    )
    add(
        S,
        "mqtt_broker_password",
        pw2,
        [
            "mosquitto_pub -h broker.fleet.internal -u gateway -P {v} -t test -m hi",
            "MQTT creds for telemetry: user dev_agent pass {v}",
            "mqtt://telemetry:{v}@10.1.4.20:1883",
        ],
    )
    add(
        S,
        "jfrog_artifactory_token",
        lambda: "cmVmdGtuOjAxOjE3" + s(ALNUM, 48),
        [
            "Artifactory identity token for pushing sstate and images: {v}",
            "ARTIFACTORY_TOKEN={v}",
            "jf c add --access-token {v}",
        ],
    )
    add(
        S,
        "github_pat_ci",
        lambda: "ghp_" + s(ALNUM, 36),
        [
            "repo tool needs a PAT to clone the private manifest: {v}",
            'git config url."https://x-access-token:{v}@github.com/".insteadOf https://github.com/',
            "GITHUB_TOKEN for the BSP mirror job: {v}",
        ],
    )
    add(
        S,
        "gitlab_runner_token",
        lambda: "glrt-" + s(URLSAFE, 20),
        [
            "gitlab-runner register --token {v} (yocto builder)",
            "runner auth token for the big build box: {v}",
            'config.toml: token = "{v}"',
        ],
    )
    add(
        S,
        "sstate_mirror_s3_secret",
        lambda: s(ALNUM + "/+", 40),
        [
            "sstate S3 bucket creds: AWS_ACCESS_KEY_ID=AKIA"
            + "Q7XK2M4PLW9RT3NB AWS_SECRET_ACCESS_KEY={v}",
            "the secret access key for the sstate-cache bucket: {v}",
            "aws configure --profile sstate, secret = {v}",
        ],
    )
    add(
        S,
        "docker_registry_password",
        pw2,
        [
            "docker login registry.devices.internal -u ci -p {v}",
            "crops/poky build container pulls from our registry; pw {v}",
            "REGISTRY_PASSWORD={v}",
        ],
    )
    add(
        S,
        "play_console_json_key",
        lambda: b64(24),
        [
            "fastlane supply json_key_data includes client secret {v} (oauth client for upload)",
            "Play Developer API OAuth client_secret: {v}",
            '"client_secret": "{v}" from the play-upload oauth json',
        ],
    )
    add(
        S,
        "keybox_attestation_key",
        lambda: pem("EC PRIVATE KEY", 3),
        [
            'keybox.xml <PrivateKey format="pem"> for the attestation batch:\n{v}',
            "Attestation keybox key from the OEM drop:\n{v}",
            "attest key (device batch 7):\n{v}",
        ],
    )
    add(
        S,
        "widevine_keybox_hex",
        lambda: hx(256),
        [
            "Widevine L1 keybox (device 3, test batch) raw hex: {v}",
            "keybox blob for provisioning into the TEE: {v}",
            "wv keybox: {v}",
        ],
    )
    add(
        S,
        "dm_verity_avb_key_pass",
        pw,
        [
            "avbtool make_vbmeta_image --key avb_prod.pem ... pem passphrase {v}",
            "The AVB production key is AES-encrypted, passphrase: {v}",
            "AVB_KEY_PASS={v} make dist",
        ],
    )
    add(
        S,
        "fastboot_unlock_token_secret",
        lambda: hx(64),
        [
            "OEM unlock signing secret (HMAC over the unlock data): {v}",
            "unlock server secret for fastboot oem unlock tokens: {v}",
            "the key we use to sign unlock_token.bin for RMA units: {v}",
        ],
    )
    add(
        S,
        "hw_debug_jtag_password",
        pw2,
        [
            "JTAG is password-locked on rev D; the debug unlock password is {v}",
            "Secure debug unlock key for the SoC (RMA): {v}",
            "OpenOCD: stm32 unlock with pass {v} (our RDP workaround)",
        ],
    )
    add(
        S,
        "ci_npm_token",
        lambda: "npm_" + s(ALNUM, 36),
        [
            "device-web-ui publish token: {v}",
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v} for the companion app builds",
        ],
    )
    add(
        S,
        "slack_webhook_build",
        lambda: (
            "https://hooks.slack.com/services/T"
            + s(string.ascii_uppercase + string.digits, 8)
            + "/B"
            + s(string.ascii_uppercase + string.digits, 10)
            + "/"
            + s(ALNUM, 24)
        ),
        [
            "bitbake build notifications go to {v}",
            "SLACK_WEBHOOK={v}",
            "OTA rollout alerts webhook: {v}",
        ],
    )
    add(
        S,
        "sentry_auth_token",
        lambda: "sntrys_" + s(URLSAFE, 60),
        [
            "sentry-cli for NDK symbols: SENTRY_AUTH_TOKEN={v}",
            "auth token to upload native symbols: {v}",
            "sentry.properties\nauth.token={v}",
        ],
    )
    add(
        S,
        "vpn_preshared_key",
        lambda: b64(32),
        [
            "WireGuard PresharedKey for the remote-access tunnel to gateways: {v}",
            "[Peer]\nPublicKey = 5sIZ3rTlX8yJ0dZ0KqD7bXwbq3oX1w8jSuYr7mEw1Hk=\nPresharedKey = {v}",
            "wg private key of the support jump box: {v}",
        ],
    )
    add(
        S,
        "basic_auth_url_mirror",
        pw2,
        [
            "PREMIRRORS point to https://builder:{v}@mirror.internal/downloads/",
            'SRC_URI = "git://bsp:{v}@git.vendor.example/kernel.git;protocol=https"',
            "repo init -u https://ci:{v}@gerrit.internal/platform/manifest",
        ],
    )
    add(
        S,
        "openssl_enc_pass",
        pw,
        [
            "openssl enc -aes-256-cbc -pbkdf2 -in factory.tar -out factory.tar.enc -k {v}",
            "the factory bundle is encrypted, decrypt with pass:{v}",
            "openssl rsa -in ota.key -passin pass:{v} -pubout",
        ],
    )
    add(
        S,
        "gpg_signing_passphrase",
        pw2,
        [
            "apt repo for the device packages is signed; gpg passphrase {v}",
            "reprepro signing key passphrase: {v}",
            "gpg --batch --pinentry-mode loopback --passphrase {v} --detach-sign Release",
        ],
    )
    add(
        S,
        "tuf_root_key_json",
        lambda: hx(64),
        [
            'uptane director root key: {{"keytype": "ed25519", "keyval": {{"private": "{v}"}}}}',
            "aktualizr repo targets private key (ed25519 seed): {v}",
            "TUF targets signing key private part: {v}",
        ],
    )
    add(
        S,
        "balena_api_key",
        lambda: s(ALNUM, 32),
        [
            "balena login --token {v}",
            "BALENA_API_KEY={v} (fleet deploy from CI)",
            "balena cloud api key for the test fleet: {v}",
        ],
    )
    add(
        S,
        "particle_access_token",
        lambda: hx(40),
        [
            "particle token for flashing the Borons over the cloud: {v}",
            "curl https://api.particle.io/v1/devices?access_token={v}",
            "PARTICLE_ACCESS_TOKEN={v}",
        ],
    )
    add(
        S,
        "golioth_psk",
        lambda: s(ALNUM, 24),
        [
            "Golioth PSK-ID dev1@proj-7, PSK {v}",
            'CONFIG_GOLIOTH_SAMPLE_PSK="{v}"',
            "device credentials: psk_id sensor-22@greenhouse psk {v}",
        ],
    )
    add(
        S,
        "thingsboard_device_token",
        lambda: s(ALNUM, 20),
        [
            "ThingsBoard access token for device 'pump-4': {v}",
            'mosquitto_pub -d -h tb.local -t v1/devices/me/telemetry -u "{v}" -m \'{{"t":25}}\'',
            "curl -X POST http://tb.local:8080/api/v1/{v}/telemetry",
        ],
    )
    add(
        S,
        "hawkbit_gateway_token",
        lambda: hx(32),
        [
            "hawkBit gateway security token: {v}",
            "swupdate -u '-t DEFAULT -u http://hawkbit:8080 -k {v}'",
            "Authorization: GatewayToken {v}",
        ],
    )
    add(
        S,
        "memfault_project_key_secret",
        lambda: s(ALNUM, 32),
        [
            "Memfault organization auth token for symbol upload: {v}",
            "memfault --org-token {v} upload-yocto-symbols",
            "MEMFAULT_ORG_TOKEN={v}",
        ],
    )
    add(
        S,
        "bitbucket_app_password",
        lambda: "ATBB" + s(ALNUM, 28),
        [
            "bitbucket app password for the layer repos: {v}",
            "git clone https://buildbot:{v}@bitbucket.org/acme/meta-acme.git",
            "BB_APP_PASSWORD={v}",
        ],
    )
    add(
        S,
        "telnet_backdoor_password",
        pw,
        [
            "the old firmware has telnetd on 2323; login admin / {v}",
            "vendor support telnet password for the DVRs: {v}",
            "busybox telnetd is still on in 1.4; user 'factory' pwd {v}",
        ],
    )
    add(
        S,
        "uboot_env_ethaddr_secret_combo",
        pw2,
        [
            "fw_printenv on unit 9:\nethaddr=00:1A:2B:3C:4D:5E\nbootcmd=run mmcboot\nfactory_pw={v}",
            "u-boot env has svc_pass={v} next to serial# — strip it in the next release",
            "setenv dbgpass {v}; saveenv",
        ],
    )
    add(
        S,
        "adb_relay_shared_secret",
        lambda: s(string.digits, 6) + "-" + pw2(),
        [
            "remote debug bridge shared secret for the kiosk fleet: {v}",
            "adb-over-VPN relay password: {v}",
            "sshuttle adb relay auth: {v}",
        ],
    )

    # ----------------------------------------------------------------- benign
    add(
        B,
        "apk_cert_sha256_fingerprint",
        lambda: fp_colon(32),
        [
            "Release cert SHA-256 for assetlinks.json: {v}",
            "apksigner verify --print-certs says Signer #1 certificate SHA-256 digest: {v}",
            "Play App Signing key certificate fingerprint (SHA-256): {v}",
        ],
    )
    add(
        B,
        "build_fingerprint",
        lambda: (
            f"acme/tab8/tab8:13/TQ3A.{s(string.digits, 6)}.{s(string.digits, 3)}/{s(string.digits, 8)}:user/release-keys"
        ),
        [
            "ro.build.fingerprint={v}",
            "CTS failed on build {v}",
            "The OTA targets only devices reporting fingerprint {v}",
        ],
    )
    add(
        B,
        "android_serial_number",
        lambda: "R5" + s(string.ascii_uppercase + string.digits, 9),
        [
            "adb -s {v} shell getprop ro.boot.serialno",
            "the flaky unit on desk 4 is serial {v}",
            "fastboot devices lists {v}\tfastboot",
        ],
    )
    add(
        B,
        "imei",
        imei,
        [
            "IMEI of the test phone: {v} (only used to whitelist in MDM)",
            "*#06# shows {v} on slot 1",
            "Carrier activation rejected IMEI {v}, opened ticket",
        ],
    )
    add(
        B,
        "meid",
        lambda: HX(14),
        [
            "MEID {v} on the CDMA reference unit",
            "service getprop ril.meid -> {v}",
            "The modem reports MEID {v} after the NV restore",
        ],
    )
    add(
        B,
        "mac_address",
        mac,
        [
            "ethaddr from the OTP on board 12: {v}",
            "DHCP reservation for the lab gateway: {v} -> 192.168.7.20",
            "wlan0 came up with a random MAC {v} instead of the one in the fuse",
        ],
    )
    add(
        B,
        "adb_pubkey",
        lambda: "QAAAA" + s(B64, 700) + "= build@station-3",
        [
            "adbkey.pub for the factory station, add to /data/misc/adb/adb_keys:\n{v}",
            "Paste this public key into adb_keys on the userdebug images: {v}",
            "adb_keys line for CI: {v}",
        ],
    )
    add(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43) + " field-service",
        [
            "authorized_keys on the gateway image:\n{v}",
            "ROOTFS_POSTPROCESS adds this pubkey for the support user: {v}",
            "public half of the maintenance key: {v}",
        ],
    )
    add(
        B,
        "ssh_host_key_fingerprint",
        lambda: "SHA256:" + s(B64, 43),
        [
            "The host key of the new build server is ED25519 {v}, verify before first ssh",
            "known_hosts mismatch: the board now presents {v} because we reflashed",
            "Board host key fingerprint {v}",
        ],
    )
    add(
        B,
        "x509_public_cert_pem",
        lambda: pem("CERTIFICATE", 4),
        [
            "AWS IoT root CA we bundle in /etc/ssl (public):\n{v}",
            "Device certificate (public, not the key) for unit 0042:\n{v}",
            "platform.x509.pem so the app team can compare:\n{v}",
        ],
    )
    add(
        B,
        "avb_public_key_hash",
        lambda: hx(64),
        [
            "avbtool info_image reports Public key (sha1 of) ... ; sha256 of avb_pkmd.bin = {v}",
            "fastboot flash avb_custom_key with pkmd whose digest is {v}",
            "ro.boot.vbmeta.digest={v}",
        ],
    )
    add(
        B,
        "hab_srk_table_hash",
        lambda: hx(64),
        [
            "SRK_1_2_3_4_fuse.bin sha256: {v}",
            "srktool output table hash {v} — matches what we fused",
            "HAB SRK hash (public, goes into OTP): {v}",
        ],
    )
    add(
        B,
        "efuse_srk_hash_fuse_values",
        lambda: " ".join("0x" + HX(8) for _ in range(8)),
        [
            "fuse prog -y 6 0 ... values from SRK_fuse table: {v}",
            "SRK hash words to burn on the i.MX6 (public key hash): {v}",
            "u-boot> fuse read 3 0 8 gave {v}",
        ],
    )
    add(
        B,
        "ota_payload_sha256",
        lambda: b64(32),
        [
            "payload_properties.txt: FILE_HASH={v}",
            'update_engine_client --headers="FILE_HASH={v}\nFILE_SIZE=812334592"',
            "METADATA_HASH={v}",
        ],
    )
    add(
        B,
        "yocto_srcrev",
        lambda: hx(40),
        [
            'SRCREV = "{v}"',
            "bumped linux-imx SRCREV to {v} for the DDR fix",
            'SRCREV_meta = "{v}" in the kernel bbappend',
        ],
    )
    add(
        B,
        "buildroot_hash_file",
        lambda: hx(64),
        [
            "package/foo/foo.hash:\nsha256  {v}  foo-1.2.3.tar.xz",
            "Buildroot complained the hash is wrong; the upstream tarball is sha256 {v}",
            "# Locally computed\nsha256  {v}  LICENSE",
        ],
    )
    add(
        B,
        "sstate_signature_hash",
        lambda: hx(64),
        [
            "bitbake-diffsigs shows task hash changed to {v} after the whitespace edit",
            "sstate object sstate:busybox:cortexa53-poky-linux:1.36.1:r0:cortexa53:11:{v}_package.tar.zst missing",
            "unihash {v} came from the hash equivalence server",
        ],
    )
    add(
        B,
        "git_commit_sha",
        lambda: hx(40),
        [
            "U-Boot regression bisected to {v}",
            "cherry-pick {v} from the vendor kernel for the eMMC HS400 fix",
            'manifest pinned to revision="{v}"',
        ],
    )
    add(
        B,
        "keystore_path_only",
        lambda: "/opt/signing/" + s(string.ascii_lowercase, 8) + ".jks",
        [
            "The release keystore lives at {v} on the signing host; password is only in the HSM-backed vault",
            'storeFile = file("{v}")',
            "moved the keystore to {v}, permissions 0400 owned by signer",
        ],
    )
    add(
        B,
        "gradle_signing_env_reference",
        lambda: 'System.getenv("' + s(string.ascii_uppercase, 6) + '_STORE_PASSWORD")',
        [
            "storePassword {v} — never hardcode it",
            "We switched the release signingConfig to storePassword = {v}",
            "keyPassword reads {v}; CI injects it from the secret store",
        ],
    )
    add(
        B,
        "placeholder_password",
        lambda: rng.choice(
            [
                "<your-keystore-password>",
                "CHANGE_ME",
                "********",
                "${KEYSTORE_PASS}",
                "xxxxxxxx",
                "<root-password-here>",
            ]
        ),
        [
            "keystore.properties template: storePassword={v}",
            'BR2_TARGET_GENERIC_ROOT_PASSWD="{v}" in the public example defconfig',
            "docs example: apksigner sign --ks-pass pass:{v} app.apk",
        ],
    )
    add(
        B,
        "vault_reference",
        lambda: "vault:secret/data/signing/" + s(string.ascii_lowercase, 6) + "#password",
        [
            "OTA key passphrase: {v}",
            "the ota signer reads the AVB pass from {v} at runtime",
            "keystore password -> {v} (ask #release for access)",
        ],
    )
    add(
        B,
        "redacted_password",
        lambda: pw()[:2] + "•" * 10,
        [
            "root password on the field image is {v} (shown masked; real one in 1Password 'Gateway root')",
            "the log printed the u-boot pass as {v} after we added masking",
            "MQTT pass: {v} (redacted)",
        ],
    )
    add(
        B,
        "revoked_token_stated",
        lambda: "drt_" + s(URLSAFE, 8) + "…",
        [
            "The old registration token {v} was revoked on 2026-11-02 and removed everywhere",
            "ticket: leaked ota token prefix {v} — rotated and dead, nothing to do",
            "Only the first chars of the revoked token for grepping logs: {v}",
        ],
    )
    add(
        B,
        "uboot_env_dump_no_secret",
        lambda: "bootargs=console=ttymxc0,115200 root=/dev/mmcblk2p" + s("23", 1) + " rootwait ro",
        [
            "fw_printenv (nothing sensitive):\n{v}\nbootdelay=2",
            "set {v} for the A/B slot test",
            "u-boot env after reflash: {v}",
        ],
    )
    add(
        B,
        "root_password_hash_shadow",
        lambda: "$6$" + s(ALNUM + "./", 16) + "$" + s(ALNUM + "./", 86),
        [
            "/etc/shadow root entry on the lab image: root:{v}:19700:0:99999:7:::",
            "EXTRA_USERS_PARAMS = \"usermod -p '{v}' root;\" (hash only, plaintext not in repo)",
            "audit: the image contains crypt hash {v} for user service",
        ],
    )
    add(
        B,
        "debug_fs_empty_password_policy",
        lambda: "debug-tweaks",
        [
            'IMAGE_FEATURES += "{v}" gives an empty root password; never in production images',
            "remove {v} before the release build so root login is locked",
            "QA image has {v}, that's why ssh root works without a password",
        ],
    )
    add(
        B,
        "fastboot_unlock_data_blob",
        lambda: "(bootloader) " + HX(32),
        [
            "fastboot oem get_unlock_data:\n{v}\n(bootloader) {x}".replace("{x}", HX(32)),
            "unlock data lines for the RMA request (device-specific, not a key):\n{v}",
            "got {v} from get_unlock_data, submitted to the vendor portal",
        ],
    )
    add(
        B,
        "device_uuid",
        uuid,
        [
            "thing name in the registry: gw-{v}",
            "Device id {v} showed up twice in the fleet table",
            "ro.boot.uuid={v}",
        ],
    )
    add(
        B,
        "iccid",
        lambda: "8944" + s(string.digits, 15),
        [
            "SIM ICCID {v} on the LTE gateway",
            "the modem answers AT+CCID with {v}",
            "Activated ICCID {v} on the IoT plan",
        ],
    )
    add(
        B,
        "icc_cpu_serial",
        lambda: hx(16),
        [
            "cat /proc/cpuinfo | grep Serial -> {v}",
            "The SoC unique id (OCOTP_CFG0/1) reads {v}",
            "Pi CM4 serial {v} used as hostname suffix",
        ],
    )
    add(
        B,
        "widevine_system_id",
        lambda: str(rng.randint(4000, 9999)),
        [
            "Widevine system id for our SoC family is {v}, the keyboxes are delivered separately",
            "DRM info app shows systemId {v} and security level L3",
            "The OEM assigned Widevine system ID {v}",
        ],
    )
    add(
        B,
        "keymaster_key_id",
        lambda: hx(16),
        [
            "Keystore alias 'device_auth' has key id {v}; the key never leaves StrongBox",
            "attestation record lists the key id {v}",
            "KeyMint generated key {v} (hardware-backed, non-exportable)",
        ],
    )
    add(
        B,
        "avb_rollback_index",
        lambda: str(rng.randint(1600000000, 1800000000)),
        [
            "rollback_index for vbmeta_system set to {v}",
            "avbtool add_hashtree_footer --rollback_index {v}",
            "Security patch rollback index is now {v}",
        ],
    )
    add(
        B,
        "secure_boot_fuse_map_doc",
        lambda: "0x" + HX(2),
        [
            "To close the device burn SEC_CONFIG (bank 1 word 3, bit 1) — fuse value {v}; irreversible",
            "OTP word 5 (BOOT_CFG) should be {v} for eMMC boot",
            "the JTAG disable fuse is bit 21, we wrote mask {v}",
        ],
    )
    add(
        B,
        "ota_manifest_version_hash",
        lambda: hx(64),
        [
            'manifest.json: {{"version": "4.2.1", "sha256": "{v}", "size": 104857600}}',
            "OTA 4.2.1 image digest {v}",
            "rollout paused; bundle sha256 {v}",
        ],
    )
    add(
        B,
        "docker_image_digest",
        lambda: "sha256:" + hx(64),
        [
            "crops/poky pinned at {v}",
            "FROM ghcr.io/acme/yocto-builder@{v}",
            "the build container digest changed to {v}",
        ],
    )
    add(
        B,
        "npm_integrity_sha512",
        lambda: "sha512-" + b64(64),
        [
            '"integrity": "{v}"',
            "package-lock integrity for the device ui: {v}",
            "EINTEGRITY: expected {v}",
        ],
    )
    add(
        B,
        "pgp_public_key_fingerprint",
        lambda: " ".join(HX(4) for _ in range(10)),
        [
            "apt repo signing key fingerprint: {v}",
            "verify the Buildroot release with key {v}",
            "gpg --recv-keys then check fingerprint {v}",
        ],
    )
    add(
        B,
        "uuid_boot_partition",
        lambda: uuid().upper(),
        [
            "root=PARTUUID={v} rootwait",
            "blkid shows the rootfs_b partition as {v}",
            "wic kickstart: --part-type {v}",
        ],
    )
    add(
        B,
        "dtb_checksum",
        lambda: "0x" + hx(8),
        [
            "FIT image: fdt-1 hash crc32 = {v}",
            "## Checking hash(es) for FDT Image ... crc32+ value {v}",
            "dtb blob crc {v}",
        ],
    )
    add(
        B,
        "firebase_web_api_key_public",
        lambda: "AIza" + s(URLSAFE, 35),
        [
            "google-services.json current_key {v} — restricted to our package name and SHA-1, it's public by design",
            "The Maps key in the companion app manifest ({v}) is locked to the app signature",
            'apiKey: "{v}" (Firebase web config, restricted to our domain)',
        ],
    )
    add(
        B,
        "aws_iot_endpoint",
        lambda: s("abcdefghijklmnopqrstuvwxyz0123456789", 14) + "-ats.iot.eu-west-1.amazonaws.com",
        [
            "MQTT endpoint for the fleet: {v}",
            "aws iot describe-endpoint --endpoint-type iot:Data-ATS -> {v}",
            "set AWS_IOT_ENDPOINT={v} in the image",
        ],
    )
    add(
        B,
        "azure_dps_id_scope",
        lambda: "0ne00" + HX(6),
        [
            "DPS ID scope: {v}",
            "the gateways register against id scope {v} with their X.509 cert",
            "idScope={v}",
        ],
    )
    add(
        B,
        "mender_artifact_checksum",
        lambda: hx(64),
        [
            "mender-artifact read shows checksum {v} for rootfs-image",
            "artifact core-image-full-cmdline payload sha256 {v}",
            "Mender says the rootfs checksum is {v}",
        ],
    )
    add(
        B,
        "hawkbit_controller_id",
        lambda: "ctrl-" + hx(12),
        [
            "hawkBit controllerId {v} is stuck in pending",
            "target {v} was assigned distribution set 3.1",
            "controller id: {v}",
        ],
    )
    add(
        B,
        "lorawan_dev_eui",
        lambda: HX(16),
        [
            "LoRaWAN DevEUI {v}, JoinEUI 0000000000000000",
            "register DevEUI {v} in TTN",
            "sensor 7 DevEUI is {v}",
        ],
    )
    add(
        B,
        "bluetooth_irk_doc",
        lambda: "IRK",
        [
            "Bluetooth pairing stores an {v} per bonded phone; we clear them on factory reset",
            "The {v} lets the phone resolve our random address, nothing to configure",
            "Wiping /data/misc/bluedroid drops every {v} and link key; users must re-pair",
        ],
    )
    add(
        B,
        "ble_uuid_service",
        lambda: uuid(),
        [
            "GATT provisioning service UUID {v}",
            "characteristic {v} carries the Wi-Fi SSID during onboarding",
            "nRF Connect shows service {v}",
        ],
    )
    add(
        B,
        "crc32_and_md5",
        lambda: hx(32),
        [
            "md5sum u-boot.imx = {v}",
            "boot.img md5 {v}, flash again if different",
            "The vendor zip lists MD5 {v}",
        ],
    )
    add(
        B,
        "tpm_ek_public",
        lambda: pem("PUBLIC KEY", 4),
        [
            "tpm2_readpublic -c 0x81010001 -o ek.pem gives:\n{v}",
            "EK public for the allow-list:\n{v}",
            "public key to verify OTA manifests (public.pem in rootfs):\n{v}",
        ],
    )
    add(
        B,
        "sepolicy_hash",
        lambda: hx(64),
        [
            "precompiled_sepolicy.plat_sepolicy_and_mapping.sha256 = {v}",
            "sepolicy hash mismatch: {v}",
            "vendor sepolicy digest {v}",
        ],
    )
    add(
        B,
        "test_key_aosp_public",
        lambda: "build/make/target/product/security/testkey",
        [
            "the APK is still signed with {v} — anyone can sign with that, switch to release keys",
            "userdebug builds use {v}.x509.pem; that's the public AOSP test key",
            "ro.build.tags=test-keys means {v}",
        ],
    )
    add(
        B,
        "discussion_of_keys",
        lambda: "--ks-pass",
        [
            "apksigner's {v} accepts pass:, env: or file: — use env: so it stays out of ps",
            "Never pass {v} with a literal value in CI logs",
            "I removed the {v} flag and let apksigner prompt",
        ],
    )
    add(
        B,
        "keyboard_key_codes",
        lambda: "KEY_" + rng.choice(["POWER", "VOLUMEDOWN", "VOLUMEUP", "HOME"]),
        [
            "Hold {v} during boot to enter fastboot on the tablets",
            "gpio-keys maps GPIO 5 to {v} (code from input-event-codes.h)",
            "the recovery menu needs {v} twice",
        ],
    )
    add(
        B,
        "token_in_other_sense",
        lambda: "token",
        [
            "bitbake parser chokes on an unexpected {v} in the .bbappend at line 12",
            "The lexer in our DSL emits one {v} per opcode",
            "RTOS event flags: the {v} passes between tasks like a mutex",
        ],
    )
    add(
        B,
        "password_policy_text",
        lambda: "pam_pwquality",
        [
            "Production images lock root; service login uses {v} with minlen=14",
            "added {v} to common-password so device users get decent passwords",
            "{v} rejected 'Password1' as expected",
        ],
    )
    add(
        B,
        "example_in_docs",
        lambda: "android",
        [
            "The debug keystore password is {v} — same for every SDK install, it's the documented default",
            "~/.android/debug.keystore: storepass {v}, alias androiddebugkey (public default, debug only)",
            "Emulator debug key uses {v} for both passwords, as everybody knows",
        ],
    )
    add(
        B,
        "tuf_public_root_keyid",
        lambda: hx(64),
        [
            "root.json keyid {v} (public ed25519)",
            "uptane image repo targets keyid {v}",
            "threshold 1 with keyid {v}",
        ],
    )
    add(
        B,
        "rauc_cert_public",
        lambda: "/etc/rauc/keyring.pem",
        [
            "the keyring at {v} holds only the CA certificate, no private material",
            "RAUC verifies bundles against {v}",
            "update {v} when we rotate the signing cert",
        ],
    )
    add(
        B,
        "jwt_public_jwks",
        lambda: s(URLSAFE, 86),
        [
            'JWKS for device tokens: {{"kty":"RSA","e":"AQAB","n":"{v}"}}',
            "public modulus n of the OTA JWT signer: {v}",
            "jwks_uri returns n={v} (public)",
        ],
    )
    add(
        B,
        "expired_otp_code",
        lambda: s(string.digits, 6),
        [
            "the 2FA code {v} I used for the Play console login at 09:14 (already expired)",
            "SMS verification {v} — one-time, used",
            "Authenticator showed {v} then rolled over",
        ],
    )
    add(
        B,
        "pin_hint_without_value",
        lambda: "SIM PIN",
        [
            "the test SIMs have {v} disabled so the modem attaches without unlocking",
            "if the modem returns +CPIN: SIM PIN, the {v} is enabled",
            "disable {v} on all field SIMs before shipping",
        ],
    )
    add(
        B,
        "serial_console_baud",
        lambda: "115200 8N1",
        [
            "Serial console on J5: {v}, 3.3 V levels, no flow control",
            "screen /dev/ttyUSB0 at {v}",
            "Debug UART parameters: {v}",
        ],
    )
    add(
        B,
        "kernel_cmdline",
        lambda: (
            "androidboot.hardware=acme androidboot.serialno="
            + s(string.ascii_uppercase + string.digits, 12)
        ),
        [
            "cmdline: {v} quiet",
            "/proc/cmdline shows {v}",
            "BOARD_KERNEL_CMDLINE += {v}",
        ],
    )
    add(
        B,
        "ed25519_public_key_hex",
        lambda: hx(64),
        [
            "ed25519 public key of the OTA signer, compiled into the updater: {v}",
            "verify key (public) for the bootloader's signature check: {v}",
            "pubkey = {v} in ota_verify.c",
        ],
    )
    add(
        B,
        "hash_of_keystore_password",
        lambda: hx(64),
        [
            "the vault audit stores sha256 of the keystore password, not the password: {v}",
            "cannot reverse {v} — it's the sha256 we use to check the pass was not reused",
            "password digest (sha256) for comparison only: {v}",
        ],
    )
    add(
        B,
        "fcm_sender_id",
        lambda: s(string.digits, 12),
        [
            "FCM sender id {v} (project number, public)",
            "gcm_defaultSenderId = {v}",
            "project_number {v} in google-services.json",
        ],
    )
    add(
        B,
        "apple_team_id_like",
        lambda: s(string.ascii_uppercase + string.digits, 10),
        [
            "companion iOS app Team ID {v}",
            "DEVELOPMENT_TEAM = {v}",
            "provisioning profile for team {v} expires in March",
        ],
    )
    add(
        B,
        "csr_pem",
        lambda: pem("CERTIFICATE REQUEST", 4),
        [
            "CSR the factory station generated for unit 77 (public):\n{v}",
            "send this CSR to the CA:\n{v}",
            "device.csr:\n{v}",
        ],
    )
    add(
        B,
        "wifi_ssid_only",
        lambda: "LINE" + s(string.digits, 1) + "-PROV-" + HX(4),
        [
            "provisioning SSID is {v}; the psk is in the vault",
            "devices join {v} during EOL test",
            'ssid="{v}" (open network isolated on VLAN 40)',
        ],
    )
    add(
        B,
        "keystore_alias_and_sha1",
        lambda: fp_colon(20),
        [
            "alias upload, SHA1: {v}",
            "Facebook SDK key hash needs SHA1 {v}",
            "registered SHA-1 {v} in the Firebase console",
        ],
    )

    for r in rows:
        assert r["value"] in r["text"], r
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
