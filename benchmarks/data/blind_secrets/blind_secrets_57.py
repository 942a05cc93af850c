# ruff: noqa: E501
"""Blind secret-detector corpus 57: bank mainframe and core-banking team.

Brief: memory notes of a bank's mainframe/core-banking team (z/OS, RACF, CICS, IMS, DB2, MQ, JCL/TSO, COBOL builds, SWIFT and payment gateways, HSM key ceremonies, batch schedulers, LDAP/service accounts, z/OS Connect/Kafka/REST bridges) with live secrets and look-alikes.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_57.py [out.jsonl]

Kinds, secret: racf_password_prose, racf_altuser_password_cmd, racf_passphrase, tso_logon_password, jcl_jobcard_password, ftp_netrc_password, db2_jdbc_url_password, db2_connect_using, db2_env_password, mq_mqcsp_password, mq_kdb_stash_password, ims_connect_password, service_account_password_no_keyword, ldap_bind_password, firecall_breakglass_password, hsm_lmk_component_clear, hsm_zmk_component_clear, hsm_smartcard_pin, hsm_safe_combination, swift_lau_key, swift_sftp_password, stripe_secret_key, stripe_webhook_secret, payment_gateway_hmac_secret, aws_secret_access_key, kafka_sasl_jaas_password, confluent_cloud_api_secret, kafka_ssl_keystore_password, zos_connect_basic_auth_header, jwt_bearer_token, rsa_private_key_pem, openssh_private_key, gcp_service_account_json, azure_storage_connection_string, github_pat, gitlab_pat, slack_webhook_url, vault_token, artifactory_api_key, jenkins_api_token, ibm_cloud_api_key, splunk_hec_token, datadog_api_key, racf_ptktdata_key, liberty_xor_password, zowe_cli_password, zosmf_curl_user_pass, url_embedded_credentials, control_m_password, java_keystore_storepass
Kinds, benign: racf_password_policy, placeholder_angle_brackets, placeholder_changeme, env_var_reference, vault_path_reference, masked_password, redacted_token_tail, jcl_symbolic_password, aws_documented_example_key, jwt_io_documented_example, git_commit_sha, uuid_correlation_id, sha256_checksum, cert_fingerprint_sha256, x509_certificate_pem, ssh_public_key, hsm_key_check_value, key_encrypted_under_lmk, swift_bic_code, iban_reference, mq_message_id, db2_luwid, cics_transaction_id, jes_job_number, dasd_volser, cpc_serial_number, change_ticket_id, stripe_publishable_key, recaptcha_site_key, documented_test_card_pan, masked_pan, revoked_github_pat_stated_revoked, ldap_ssha_hash, bcrypt_hash, ansible_vault_blob, kafka_cluster_id, kafka_config_provider_ref, arqc_cryptogram_log, container_image_digest, safkeyring_reference, password_change_date_notice, cobol_copybook_password_field, ebcdic_hex_dump, secrets_manager_arn, aws_access_key_id_alone, key_ceremony_id, npm_integrity_hash, keytab_path_reference, pgp_key_fingerprint
"""

import base64
import binascii
import json
import random
import sys

SEED = 5757

UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
DG = "0123456789"
AN = UP + LO + DG
HEXU = "0123456789ABCDEF"
HEXL = "0123456789abcdef"
B64 = AN + "+/"
B64URL = AN + "-_"
WORDS = [
    "Summer",
    "Winter",
    "Tulip",
    "Falcon",
    "Cobol",
    "Lisbon",
    "Harbour",
    "Maple",
    "Kestrel",
    "Zebra",
    "Orion",
    "Granite",
    "Thames",
    "Bicycle",
    "Sparrow",
    "Copper",
    "Rainbow",
    "Pumpkin",
    "Monday",
    "Autumn",
]
SYMS = "!#$%&*?@"


def rs(r, alpha, n):
    return "".join(r.choice(alpha) for _ in range(n))


def human_pw(r):
    w = r.choice(WORDS)
    d = str(r.randint(1, 9999)).zfill(r.choice([2, 4]))
    s = r.choice(SYMS)
    form = r.randint(0, 3)
    if form == 0:
        return w + d + s
    if form == 1:
        return w + s + d
    if form == 2:
        return r.choice(WORDS).lower() + w + d + s
    return s + w + d


def racf_pw(r):
    return r.choice(UP) + rs(r, UP + DG + "#@$", 6) + r.choice(DG)


def gen_pw(r, n=16):
    return rs(r, AN + "!#%+-=", n)


def b64(b):
    return base64.b64encode(b).decode()


def b64url(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def pem_wrap(body, label):
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN {}-----\n{}\n-----END {}-----".format(label, "\n".join(lines), label)


def base62(n, width):
    out = ""
    while n:
        n, rem = divmod(n, 62)
        out = (DG + UP + LO)[rem] + out
    return out.rjust(width, "0")


# ---------------------------------------------------------------- generators
def g_pw(r):
    return {"v": human_pw(r)}


def g_racf(r):
    return {"v": racf_pw(r)}


def g_mixpw(r):
    return {"v": r.choice([human_pw(r), racf_pw(r), gen_pw(r, r.randint(12, 20))])}


def g_gen(r):
    return {"v": gen_pw(r, r.randint(14, 24))}


def g_phrase(r):
    ws = r.sample(
        [
            "blue",
            "harbour",
            "seven",
            "kettle",
            "lisbon",
            "granite",
            "quiet",
            "tram",
            "orange",
            "falcon",
            "winter",
            "copper",
            "north",
            "bicycle",
        ],
        4,
    )
    return {"v": " ".join(ws) + " " + str(r.randint(10, 99)) + r.choice(SYMS)}


def g_hex32(r):
    return {"v": rs(r, HEXU, 32)}


def g_hex32_grp(r):
    h = rs(r, HEXU, 32)
    return {"v": " ".join(h[i : i + 4] for i in range(0, 32, 4)), "kcv": rs(r, HEXU, 6)}


def g_hex32_kcv(r):
    return {"v": rs(r, HEXU, 32), "kcv": rs(r, HEXU, 6)}


def g_pin(r):
    return {"v": rs(r, DG, r.choice([5, 6, 8]))}


def g_combo(r):
    return {"v": "-".join(str(r.randint(10, 99)) for _ in range(3))}


def g_lau(r):
    return {"v": rs(r, AN, 16), "v2": rs(r, AN, 16)}


def g_lau_full(r):
    return {"v": rs(r, AN, 32)}


def g_stripe(r):
    return {"v": r.choice(["sk_live_", "rk_live_"]) + "51" + rs(r, AN, 96)}


def g_whsec(r):
    return {"v": "whsec_" + rs(r, AN, 32)}


def g_hex64(r):
    return {"v": rs(r, HEXL, 64)}


def g_aws(r):
    return {"v": rs(r, B64, 40), "kid": "AKIA" + rs(r, UP + "234567", 16)}


def g_confluent(r):
    return {"v": rs(r, B64, 64), "kid": rs(r, UP + DG, 16)}


def g_basic(r):
    user = r.choice(["ZCBRIDGE", "zceeapi", "PAYAPI01"])
    pw = human_pw(r)
    return {"v": b64((user + ":" + pw).encode()), "pw": pw}


def g_jwt(r):
    h = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    p = b64url(
        json.dumps(
            {
                "sub": "ZCBRIDGE",
                "aud": "zosconnect",
                "iat": 1790000000 + r.randint(0, 9999999),
                "exp": 1800000000 + r.randint(0, 9999999),
                "jti": rs(r, HEXL, 16),
            },
            separators=(",", ":"),
        ).encode()
    )
    return {"v": h + "." + p + "." + b64url(r.randbytes(32))}


def g_rsa(r):
    body = b64(bytes.fromhex("308204a30201000282010100") + r.randbytes(1180))
    return {"v": pem_wrap(body, "RSA PRIVATE KEY")}


def g_openssh(r):
    body = b64(
        b"openssh-key-v1\x00" + b"\x00\x00\x00\x04none\x00\x00\x00\x04none" + r.randbytes(360)
    )
    return {"v": pem_wrap(body, "OPENSSH PRIVATE KEY")}


def g_gcp(r):
    body = b64(
        bytes.fromhex("308204be020100300d06092a864886f70d0101010500048204a8") + r.randbytes(1000)
    )
    key = pem_wrap(body, "PRIVATE KEY").replace("\n", "\\n") + "\\n"
    return {"v": key, "kid": rs(r, HEXL, 40), "cid": rs(r, DG, 21)}


def g_azure(r):
    return {"v": b64(r.randbytes(64))}


def g_ghp(r):
    body = rs(r, AN, 30)
    return {"v": "ghp_" + body + base62(binascii.crc32(body.encode()), 6)}


def g_glpat(r):
    return {"v": "glpat-" + rs(r, B64URL, 20)}


def g_slack(r):
    return {
        "v": f"https://hooks.slack.com/services/T{rs(r, UP + DG, 8)}/B{rs(r, UP + DG, 10)}/{rs(r, AN, 24)}"
    }


def g_vault(r):
    return {"v": "hvs." + rs(r, AN + "_-", 90)}


def g_akcp(r):
    return {"v": "AKCp" + rs(r, AN, 69)}


def g_jenkins(r):
    return {"v": "11" + rs(r, HEXL, 32)}


def g_ibmcloud(r):
    return {"v": rs(r, AN + "_-", 44)}


def g_uuid_up(r):
    h = rs(r, HEXU, 32)
    return {
        "v": "{}-{}-4{}-{}{}-{}".format(
            h[:8], h[8:12], h[13:16], r.choice("89AB"), h[17:20], h[20:32]
        )
    }


def g_uuid(r):
    h = rs(r, HEXL, 32)
    return {
        "v": "{}-{}-4{}-{}{}-{}".format(
            h[:8], h[8:12], h[13:16], r.choice("89ab"), h[17:20], h[20:32]
        )
    }


def g_dd(r):
    return {"v": rs(r, HEXL, 32)}


def g_hex16(r):
    return {"v": rs(r, HEXU, 16)}


def g_xor(r):
    pw = human_pw(r)
    return {"v": "{xor}" + b64(bytes(ord(c) ^ ord("_") for c in pw)), "pw": pw}


# benign generators
def g_fixed(*vals):
    def g(r):
        return {"v": r.choice(vals)}

    return g


def g_policy(r):
    return {"v": f"INTERVAL({r.choice([30, 45, 60, 90])})", "hist": r.choice([8, 12, 24, 32])}


def g_stars(r):
    return {"v": "*" * r.randint(6, 12)}


def g_tail(r):
    return {"v": r.choice(["ghp_****", "sk_live_...", "glpat-xxxx", "hvs.****"]) + rs(r, AN, 4)}


def g_sha40(r):
    return {"v": rs(r, HEXL, 40)}


def g_fp(r):
    return {"v": ":".join(rs(r, HEXU, 2) for _ in range(32))}


def g_cert(r):
    body = b64(
        bytes.fromhex("308203") + r.randbytes(2) + bytes.fromhex("308202") + r.randbytes(700)
    )
    return {"v": pem_wrap(body, "CERTIFICATE")}


def g_sshpub(r):
    return {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, B64, 43)}


def g_kcv(r):
    return {"v": rs(r, HEXU, 6)}


def g_under_lmk(r):
    return {"v": "U" + rs(r, HEXU, 32), "kcv": rs(r, HEXU, 6)}


def g_bic(r):
    return {
        "v": rs(r, UP, 4)
        + r.choice(["GB", "DE", "FR", "NL", "PL"])
        + rs(r, UP + DG, 2)
        + r.choice(["", "XXX"])
    }


def g_iban(r):
    return {"v": f"GB{r.randint(10, 99):02d}{rs(r, UP, 4)}{rs(r, DG, 14)}"}


def g_msgid(r):
    return {"v": "414D5120514D5052443120202020202020" + rs(r, HEXU, 15)}


def g_luw(r):
    return {"v": "GBNET01.DB2P{}.{}".format(r.choice("ABC"), rs(r, HEXU, 12))}


def g_tran(r):
    return {"v": rs(r, UP, 1) + rs(r, UP + DG, 3)}


def g_job(r):
    return {"v": "JOB" + rs(r, DG, 5)}


def g_vol(r):
    return {"v": rs(r, UP, 2) + rs(r, UP + DG, 4)}


def g_cpc(r):
    return {"v": "02-" + rs(r, HEXU, 5)}


def g_chg(r):
    return {"v": r.choice(["CHG", "INC", "RITM"]) + rs(r, DG, 7)}


def g_pk(r):
    return {"v": "pk_live_51" + rs(r, AN, 96)}


def g_site(r):
    return {"v": "6L" + rs(r, AN + "_-", 38)}


def g_pan_mask(r):
    return {"v": r.choice(["411111", "545454", "492181"]) + "******" + rs(r, DG, 4)}


def g_ssha(r):
    return {"v": "{SSHA}" + b64(r.randbytes(28))}


def g_bcrypt(r):
    return {"v": "$2b$12$" + rs(r, AN + "./", 53)}


def g_avault(r):
    h = rs(r, HEXL, 160)
    return {
        "v": "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(h[i : i + 80] for i in range(0, 160, 80))
    }


def g_kcid(r):
    return {"v": rs(r, B64URL, 22)}


def g_digest(r):
    return {"v": "sha256:" + rs(r, HEXL, 64)}


def g_date(r):
    return {"v": f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"}


def g_ebcdic(r):
    return {"v": " ".join(rs(r, "CDEF", 1) + rs(r, HEXU, 7) for _ in range(4))}


def g_arn(r):
    return {
        "v": f"arn:aws:secretsmanager:eu-west-2:{rs(r, DG, 12)}:secret:zos/db2p/PRODBAT-{rs(r, AN, 6)}"
    }


def g_akia(r):
    return {"v": "AKIA" + rs(r, UP + "234567", 16)}


def g_kcid2(r):
    return {"v": f"KC-2026-{r.randint(1, 999):03d}"}


def g_npm(r):
    return {"v": "sha512-" + b64(r.randbytes(64))}


def g_pgp(r):
    return {"v": " ".join(rs(r, HEXU, 4) for _ in range(10))}


def g_num(r):
    return {"v": str(r.randint(3, 14))}


SECRET = [
    (
        "racf_password_prose",
        g_mixpw,
        [
            "RACF pw for PRODBAT on SYSA reset today, it's {v} until next interval",
            "note to self: batch ID DB2BAT1 password = {v} (Kev set it during the CHG)",
            "Das RACF-Passwort für CICSUSR auf LPAR PRD1 lautet jetzt {v}",
            "le mot de passe RACF de l'ID MQADMIN est {v}, ne pas le changer avant vendredi",
            "| PRODBAT | SYSA | {v} | owner: batch ops |",
        ],
    ),
    (
        "racf_altuser_password_cmd",
        g_racf,
        [
            "ALU BATCH01 PASSWORD({v}) NOEXPIRED RESUME",
            "ran: ALTUSER CICSRGN PASSWORD({v}) NOEXPIRED  -- region id, dont expire",
            "TSO cmd used for the DR test:\n  ALU IMSCTL PASSWORD({v}) RESUME",
            "ADDUSER ZCBRIDGE DFLTGRP(ZCGRP) OWNER(SECADM) PASSWORD({v}) NOSPECIAL",
        ],
    ),
    (
        "racf_passphrase",
        g_phrase,
        [
            "ALU OPSUSR1 PHRASE('{v}') NOEXPIRED",
            "passphrase for the firecall FCALL02 is '{v}' (with the spaces)",
            "RACF password phrase for SWIFTUSR: {v}",
            "Hasło (passphrase) dla użytkownika TSO OPSUSR2: {v}",
        ],
    ),
    (
        "tso_logon_password",
        g_mixpw,
        [
            "TSO logon IBMOPS3 / {v}  (test LPAR only... but same on prod lol)",
            "logon to TSO on sysb: userid DEVJ01 pw {v}",
            "when ISPF asks for the pw on SYSC just use {v}",
            "TSO: PAYDEV1\n{v}",
        ],
    ),
    (
        "jcl_jobcard_password",
        g_racf,
        [
            "//PAYNITE JOB (ACCT01),'NIGHTLY PAY',CLASS=A,MSGCLASS=X,\n//         USER=PRODBAT,PASSWORD={v}",
            "old jobcard still in PROD.JCLLIB(RECON01): USER=RECBAT,PASSWORD={v} - must move to surrogate",
            "//XMITJOB JOB ,'NJE',USER=NJEUSR,PASSWORD={v},NOTIFY=&SYSUID",
            "found PASSWORD={v} hardcoded on the jobcard of SWFTOUT2",
        ],
    ),
    (
        "ftp_netrc_password",
        g_racf,
        [
            "machine mvsprd1.bank.internal login FTPBAT password {v}",
            "~/.netrc on the ETL box:\nmachine 10.42.8.11\n  login FTPPAY\n  password {v}",
            "ftp -n mvsprd1 <<EOF\nuser FTPBAT {v}\nbin\nput settle.dat 'PAY.SETTLE.IN'\nEOF",
            "FTP to the mainframe from the settlement server: FTPBAT / {v}",
        ],
    ),
    (
        "db2_jdbc_url_password",
        g_mixpw,
        [
            "jdbc:db2://db2p.bank.internal:446/DSNP:user=CBSAPP;password={v};sslConnection=true;",
            "spring.datasource.url=jdbc:db2://10.42.3.20:5021/DB2PLOC\nspring.datasource.username=CBSAPP\nspring.datasource.password={v}",
            "datasource for the loans API uses CBSAPP/{v} on DB2PLOC",
            '<dataSource jndiName="jdbc/core"><properties.db2.jcc databaseName="DSNP" user="CBSRO" password="{v}"/></dataSource>',
        ],
    ),
    (
        "db2_connect_using",
        g_mixpw,
        [
            "db2 connect to DSNP user DBAUSR1 using {v}",
            "from the jump host: db2 catalog done, then `db2 connect to DB2T user CBSTEST using {v}`",
            "db2 => CONNECT TO DSNQ USER RPTREAD USING {v}",
            "clpplus CBSAPP/{v}@db2p.bank.internal:446/DSNP",
        ],
    ),
    (
        "db2_env_password",
        g_gen,
        [
            "DB2_USER=CBSAPP\nDB2_PASSWORD={v}",
            "export DB2PASSWORD='{v}'",
            "DB2_PWD={v}",
            "set in the pipeline vars by mistake: DB2_PASS = {v}",
        ],
    ),
    (
        "mq_mqcsp_password",
        g_mixpw,
        [
            "MQ client conn to QMPRD1 over SVRCONN PAY.SVRCONN: user mqpay pw {v}",
            "ibm.mq.user=mqbridge\nibm.mq.password={v}",
            "MQCSP auth for the gateway app -> QMGW01, userid MQGW, password {v}",
            "runmqsc via client: `MQSAMP_USER_ID=mqadmin` then typed {v} at the prompt",
        ],
    ),
    (
        "mq_kdb_stash_password",
        g_gen,
        [
            "runmqakm -keydb -create -db /var/mqm/qmgrs/QMGW01/ssl/key.kdb -pw {v} -stash",
            "keystore pw for QMGW01 key.kdb: {v}",
            "runmqakm -cert -list -db key.kdb -pw {v}",
            "kdb password (needed when rotating the MQ TLS cert): {v}",
        ],
    ),
    (
        "ims_connect_password",
        g_racf,
        [
            "IMS Connect client for the cards app: datastore IMSP, user IMSCARD, pw {v}",
            "ims.connect.user=IMSJAVA\nims.connect.password={v}",
            "OTMA/IMS Connect test: ./icon_test --host imsp.bank.internal --port 9999 --user IMSTST --pw {v}",
            "IMSP signon for the TM resource adapter is IMSRA / {v}",
        ],
    ),
    (
        "service_account_password_no_keyword",
        g_pw,
        [
            "svc_mqbridge / {v}",
            "for the SWIFT bureau box it's swiftops and {v}",
            "AD svc acct svc-zosconnect, {v} -- Priya knows the rest",
            "CICS default user swap: CICSDFLT now {v}",
            "svc_ctm_agent : {v}",
        ],
    ),
    (
        "ldap_bind_password",
        g_mixpw,
        [
            "ldapsearch -H ldaps://ldap.bank.internal -D 'cn=svc-racfsync,ou=svc,dc=bank,dc=internal' -w '{v}' -b dc=bank,dc=internal",
            "ldap.bind.dn=cn=zcbind,ou=svc,dc=bank,dc=internal\nldap.bind.password={v}",
            "z/OS LDAP SDBM admin bind: adminDN racfid=LDAPADM,profiletype=user,cn=RACFA pw {v}",
            "conn.simple_bind_s('cn=svc-mqldap,ou=svc,dc=bank,dc=internal', '{v}')",
        ],
    ),
    (
        "firecall_breakglass_password",
        g_mixpw,
        [
            "break glass: FIRE01 password {v} (envelope in safe was opened 03:10, must be reset)",
            "firecall ID for SYSA if RACF locks everyone out -> FCALL1 / {v}",
            "Emergency ID EMRG02 Kennwort: {v}",
            "incident 2am: used firecall FCALL2 with {v}, reset pending",
        ],
    ),
    (
        "hsm_lmk_component_clear",
        g_hex32_grp,
        [
            "LMK component 2 (clear) entered by custodian B: {v}  KCV {kcv}",
            "payShield LMK pair 04-05 component 1:\n{v}",
            "ceremony scratch notes - comp 3 = {v}",
            "LMK-Komponente 1 im Klartext: {v}",
        ],
    ),
    (
        "hsm_zmk_component_clear",
        g_hex32_kcv,
        [
            "ZMK comp A from the scheme (clear): {v} kcv {kcv}",
            "FK command input, component 2: {v}",
            "zmk clear component from Visa envelope #2 = {v}",
            "| ZMK | comp 1 | {v} | {kcv} |",
        ],
    ),
    (
        "hsm_smartcard_pin",
        g_pin,
        [
            "LMK smartcard 3 PIN: {v}",
            "PIN for the HSM admin card (custodian A): {v}",
            "payShield Manager card PIN is {v}, card in safe 2",
            "PIN karty administratora HSM: {v}",
        ],
    ),
    (
        "hsm_safe_combination",
        g_combo,
        [
            "safe 2 (HSM cards + LMK comps) combo {v}",
            "combination for the key ceremony safe in DC2: {v}",
            "Kombination Tresor HSM-Raum: {v}",
            "ceremony room safe -> {v}",
        ],
    ),
    (
        "swift_lau_key",
        g_lau,
        [
            "Alliance Access LAU key for MQ adapter: left {v} right {v2}",
            "SAA LAU left half = {v}",
            "LAU key (MQHA, BIC BANKGB2L) left={v} right={v2}",
            "clé LAU gauche: {v}",
        ],
    ),
    (
        "swift_sftp_password",
        g_pw,
        [
            "sftp to the SWIFT service bureau: user bankgb2l_ft, pw {v}",
            "SWIFTNet Link HSM partition pw: {v}",
            "Alliance Web Platform admin login: admin1 / {v}",
            "SWIFT AGI sftp user bkgbft password {v}",
        ],
    ),
    (
        "stripe_secret_key",
        g_stripe,
        [
            "card acquiring fallback uses stripe, live key {v}",
            "STRIPE_SECRET_KEY={v}",
            "curl https://api.stripe.com/v1/charges -u {v}:",
            "Authorization: Bearer {v}",
        ],
    ),
    (
        "stripe_webhook_secret",
        g_whsec,
        [
            "STRIPE_WEBHOOK_SECRET={v}",
            "webhook signing secret for the refunds endpoint: {v}",
            "endpoint_secret = '{v}'",
            "{v}",
        ],
    ),
    (
        "payment_gateway_hmac_secret",
        g_hex64,
        [
            "payments hub HMAC shared secret (X-Signature): {v}",
            "gateway.hmac.key={v}",
            "SEPA inst gateway api secret {v} -- api key id is pay-core-prod",
            "x-api-key: {v}",
        ],
    ),
    (
        "aws_secret_access_key",
        g_aws,
        [
            "aws_access_key_id = {kid}\naws_secret_access_key = {v}",
            "AWS_ACCESS_KEY_ID={kid} AWS_SECRET_ACCESS_KEY={v} aws s3 cp GDG extract s3://bank-mf-offload/",
            "offload bucket creds: {kid} / {v}",
            "aws configure -> key {kid}, secret {v}, region eu-west-2",
        ],
    ),
    (
        "kafka_sasl_jaas_password",
        g_gen,
        [
            'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="cdc-db2" password="{v}";',
            'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="mq-bridge" password="{v}";',
            "kafka user for the IIDR CDC subscription: cdc-db2 / {v}",
            "KAFKA_SASL_PASSWORD={v}",
        ],
    ),
    (
        "confluent_cloud_api_secret",
        g_confluent,
        [
            "confluent api key {kid} secret {v}",
            "CONFLUENT_API_KEY={kid}\nCONFLUENT_API_SECRET={v}",
            "| payments-events | {kid} | {v} |",
            "confluent login broke, use key {kid} and secret:\n{v}",
        ],
    ),
    (
        "kafka_ssl_keystore_password",
        g_gen,
        [
            "ssl.keystore.password={v}\nssl.key.password={v}",
            "ssl.truststore.password={v}",
            "keystore pw for the kafka connect MQ source connector: {v}",
            'KAFKA_SSL_KEY_PASSWORD: "{v}"',
        ],
    ),
    (
        "zos_connect_basic_auth_header",
        g_basic,
        [
            "Authorization: Basic {v}",
            "curl -H 'Authorization: Basic {v}' https://zcee.bank.internal:9443/zosConnect/apis",
            "postman collection header for the accounts API -> Basic {v}",
            "basic auth for zCEE (base64): {v}",
        ],
    ),
    (
        "jwt_bearer_token",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "token for the z/OS Connect accounts API (valid 1y!!): {v}",
            'curl -H "Authorization: Bearer {v}" https://zcee.bank.internal:9443/accounts/v1/balance',
            "ZCEE_JWT={v}",
        ],
    ),
    (
        "rsa_private_key_pem",
        g_rsa,
        [
            "MQ TLS key for QMGW01 (export):\n{v}",
            "{v}",
            "private key for the zCEE server cert, before it went into the keyring:\n{v}",
            "key.pem:\n{v}",
        ],
    ),
    (
        "openssh_private_key",
        g_openssh,
        [
            "USS sftp key for OMVS user sftpbat:\n{v}",
            "{v}",
            "id_ed25519 of the DBB build agent:\n{v}",
            "deploy key for the cobol repo on gitlab:\n{v}",
        ],
    ),
    (
        "gcp_service_account_json",
        g_gcp,
        [
            '{{"type": "service_account", "project_id": "bank-mf-analytics", "private_key_id": "{kid}", "private_key": "{v}", "client_email": "db2-offload@bank-mf-analytics.iam.gserviceaccount.com", "client_id": "{cid}"}}',
            'sa key for the BigQuery offload job: {{"type":"service_account","private_key_id":"{kid}","private_key":"{v}"}}',
            '"private_key": "{v}",',
            "GOOGLE_CREDENTIALS private_key={v}",
        ],
    ),
    (
        "azure_storage_connection_string",
        g_azure,
        [
            "DefaultEndpointsProtocol=https;AccountName=bankmfarchive;AccountKey={v};EndpointSuffix=core.windows.net",
            "AZURE_STORAGE_KEY={v}",
            "archive account key (key1): {v}",
            "az storage blob upload --account-name bankmfarchive --account-key {v} -c smf -f smf.dat",
        ],
    ),
    (
        "github_pat",
        g_ghp,
        [
            "GH token for the zowe pipelines: {v}",
            "git clone https://{v}@github.com/bank-core/cobol-payments.git",
            "GITHUB_TOKEN={v}",
            "{v}",
        ],
    ),
    (
        "gitlab_pat",
        g_glpat,
        [
            "gitlab PAT for DBB builds: {v}",
            "CI_PUSH_TOKEN={v}",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.bank.internal/api/v4/projects',
            "token gitlab do pipeline COBOL: {v}",
        ],
    ),
    (
        "slack_webhook_url",
        g_slack,
        [
            "batch failure alerts go to {v}",
            "SLACK_WEBHOOK={v}",
            'curl -X POST -d \'{{"text":"PAYNITE abended S0C7"}}\' {v}',
            "webhook for #mf-ops: {v}",
        ],
    ),
    (
        "vault_token",
        g_vault,
        [
            "VAULT_TOKEN={v}",
            "vault login {v}",
            "root-ish token for the DR vault: {v}",
            "X-Vault-Token: {v}",
        ],
    ),
    (
        "artifactory_api_key",
        g_akcp,
        [
            "artifactory key for pulling the cobol copybooks pkg: {v}",
            "ARTIFACTORY_API_KEY={v}",
            "curl -H 'X-JFrog-Art-Api: {v}' https://artifactory.bank.internal/api/storage/mf-builds",
            "jfrog rt c --apikey {v}",
        ],
    ),
    (
        "jenkins_api_token",
        g_jenkins,
        [
            "jenkins token for svc_dbb: {v}",
            "curl -u svc_dbb:{v} https://jenkins.bank.internal/job/cobol-build/buildWithParameters",
            "JENKINS_API_TOKEN={v}",
            "jenkins api token (user zbuild) {v}",
        ],
    ),
    (
        "ibm_cloud_api_key",
        g_ibmcloud,
        [
            "ibmcloud login --apikey {v} -r eu-de",
            "IBMCLOUD_API_KEY={v}",
            "Wazi as a Service API key: {v}",
            '{{"name": "wazi-dev", "apikey": "{v}"}}',
        ],
    ),
    (
        "splunk_hec_token",
        g_uuid_up,
        [
            "SMF to Splunk HEC token: {v}",
            "curl -k https://splunk.bank.internal:8088/services/collector -H 'Authorization: Splunk {v}'",
            "hec.token={v}",
            "splunk HEC for syslog forwarder = {v}",
        ],
    ),
    (
        "datadog_api_key",
        g_dd,
        [
            "DD_API_KEY={v}",
            "datadog key used by the MQ exporter: {v}",
            "dd-api-key: {v}",
            "datadog api key {v}",
        ],
    ),
    (
        "racf_ptktdata_key",
        g_hex16,
        [
            "RDEFINE PTKTDATA CICSPRD SSIGNON(KEYMASKED({v})) UACC(NONE)",
            "PassTicket key for APPL IMSP: {v}",
            "RALT PTKTDATA ZCEEAPPL SSIGNON(KEYMASKED({v}))",
            "Secured signon key (zCEE -> CICS) = {v}",
        ],
    ),
    (
        "liberty_xor_password",
        g_xor,
        [
            '<keyStore id="defaultKeyStore" password="{v}"/>',
            '<user name="zcadmin" password="{v}"/>',
            'server.xml for zCEE: password="{v}" (securityUtility encode, xor only)',
            "zcee admin pw (encoded): {v}",
        ],
    ),
    (
        "zowe_cli_password",
        g_mixpw,
        [
            "zowe profiles create zosmf-profile sysa --host sysa.bank.internal --port 443 --user ZOWEBLD --password '{v}' --reject-unauthorized false",
            "zowe zos-files list ds 'PAY.*' --user ZOWEBLD --password {v}",
            "ZOWE_OPT_PASSWORD={v}",
            'zowe.config.json "password": "{v}"',
        ],
    ),
    (
        "zosmf_curl_user_pass",
        g_mixpw,
        [
            "curl -k -u ZOSMFAPI:{v} https://sysa.bank.internal/zosmf/restjobs/jobs",
            "z/OSMF REST user ZOSMFAPI pw {v}",
            "http --auth IBMOPS1:{v} https://sysb.bank.internal/zosmf/info",
            "requests.get(url, auth=('ZOSMFAPI', '{v}'), verify=False)",
        ],
    ),
    (
        "url_embedded_credentials",
        g_pw,
        [
            "ftp://FTPBAT:{v}@mvsprd1.bank.internal/'PAY.SETTLE.OUT'",
            "amqp://mqbridge:{v}@mqgw.bank.internal:5672/",
            "https://svc_dbb:{v}@git.bank.internal/mainframe/payments.git",
            "ldap://cn=svc-racfsync:{v}@ldap.bank.internal:389",
        ],
    ),
    (
        "control_m_password",
        g_mixpw,
        [
            "ctmpsm / Control-M EM login emuser / {v}",
            "ctm_agent run-as user bat_ux pw {v}",
            "Control-M/Server DB owner ctmuser password {v}",
            "IWS/TWS: twsadmin pw = {v}",
        ],
    ),
    (
        "java_keystore_storepass",
        g_gen,
        [
            "keytool -importkeystore -srckeystore zcee.p12 -srcstoretype PKCS12 -srcstorepass {v} -destkeystore key.jks",
            "keytool -list -keystore payhub.jks -storepass {v}",
            "javax.net.ssl.keyStorePassword={v}",
            "p12 from the PKI team, password {v}",
        ],
    ),
]

BENIGN = [
    (
        "racf_password_policy",
        g_policy,
        [
            "SETROPTS PASSWORD({v} HISTORY({hist}) MINCHANGE(1) REVOKE(3) WARNING(7))",
            "policy reminder: RACF PASSWORD({v}) and HISTORY({hist}); mixed case + specials are enabled",
            "we moved to {v} for service ids per audit finding",
            "Richtlinie: {v}, Kennwortverlauf {hist}",
        ],
    ),
    (
        "placeholder_angle_brackets",
        g_fixed("<your-password>", "<RACF_PW>", "<token>", "<db2-pass>"),
        [
            "db2 connect to DSNP user CBSAPP using {v}",
            "curl -u ZOSMFAPI:{v} https://sysa.bank.internal/zosmf/info",
            "ldap.bind.password={v}",
            "zowe profiles create zosmf-profile sysa --user YOURID --password {v}",
        ],
    ),
    (
        "placeholder_changeme",
        g_fixed("changeme", "CHANGEME", "password", "xxxxxxxx"),
        [
            "template says ibm.mq.password={v} - real one is in the vault",
            "DB2_PASSWORD={v}  # placeholder, pipeline injects",
            "jobcard template: PASSWORD={v} (never commit real ones)",
            "default in the helm values is '{v}', overridden per env",
        ],
    ),
    (
        "env_var_reference",
        g_fixed("${DB2_PASSWORD}", "$MQ_PASSWORD", "%ZOSMF_PW%", "${env:KAFKA_SASL_PASSWORD}"),
        [
            "spring.datasource.password={v}",
            "curl -u ZOSMFAPI:{v} https://sysa.bank.internal/zosmf/restjobs/jobs",
            'password="{v}"',
            "db2 connect to DSNP user CBSAPP using {v}",
        ],
    ),
    (
        "vault_path_reference",
        g_fixed("secret/zos/batch/PRODBAT", "kv/mf/db2p/cbsapp", "secret/data/mq/qmgw01"),
        [
            "password is in vault: vault kv get -field=password {v}",
            "batch ID creds live at {v}, do not copy out",
            "CyberArk / vault path {v}",
            "rotate via pipeline, reads {v}",
        ],
    ),
    (
        "masked_password",
        g_stars,
        [
            "ALU BATCH01 PASSWORD({v}) NOEXPIRED  (masked in the log)",
            "spring.datasource.password={v}",
            "IRR... password for user PRODBAT changed, shown as {v}",
            "pw: {v}",
        ],
    ),
    (
        "redacted_token_tail",
        g_tail,
        [
            "old token {v} rotated",
            "token ending {v} belongs to svc_dbb",
            "key in use: {v} (full value in vault)",
            "audit: {v} last used 3d ago",
        ],
    ),
    (
        "jcl_symbolic_password",
        g_fixed("&PW", "&PASSWD", "&SYSPW."),
        [
            "//STEP1 EXEC PGM=FTP,PARM='mvsprd1 (EXIT'\n//INPUT DD *\nFTPBAT {v}",
            "// SET PW=  then PASSWORD={v} on the card, filled by the scheduler",
            "jobcard uses PASSWORD={v} - symbolic, resolved by Control-M autoedit",
            "DSNTIAD connect uses {v} symbolic",
        ],
    ),
    (
        "aws_documented_example_key",
        g_fixed("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        [
            "in the doc sample: {v}",
            "aws_access_key_id = {v}  # from the AWS docs",
            "README uses {v} as the example",
            "example creds only: {v}",
        ],
    ),
    (
        "jwt_io_documented_example",
        g_fixed(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            "the jwt.io sample token {v} works against the mock",
            "Authorization: Bearer {v}  (jwt.io example, stub only)",
            "test fixture jwt: {v}",
            "doc example: {v}",
        ],
    ),
    (
        "git_commit_sha",
        g_sha40,
        [
            "fix for the S0C7 in PAYCALC is commit {v}",
            "reverted {v} (copybook change broke DB2 bind)",
            "DBB build 1442 built from {v}",
            "git cherry-pick {v}",
        ],
    ),
    (
        "uuid_correlation_id",
        g_uuid,
        [
            "correlation id {v} on the failing zCEE call",
            "x-request-id: {v}",
            "kafka record key {v}",
            "payment msg UETR {v}",
        ],
    ),
    (
        "sha256_checksum",
        g_hex64,
        [
            "sha256 of PAYCALC load module XMIT: {v}",
            "sha256sum settle.dat -> {v}",
            "checksum of the zCEE sar file {v}",
            "artifact digest {v}",
        ],
    ),
    (
        "cert_fingerprint_sha256",
        g_fp,
        [
            "zCEE server cert SHA256 fingerprint {v}",
            "pin this in the client: {v}",
            "RACDCERT LIST shows fingerprint {v}",
            "QMGW01 cert fp {v}",
        ],
    ),
    (
        "x509_certificate_pem",
        g_cert,
        [
            "CA cert to add to the truststore:\n{v}",
            "{v}",
            "public cert of the payments hub:\n{v}",
            "root cert for ldaps:\n{v}",
        ],
    ),
    (
        "ssh_public_key",
        g_sshpub,
        [
            "add to ~/.ssh/authorized_keys of sftpbat: {v} dbb-agent",
            "{v}",
            "public key of the build runner: {v}",
            "pubkey for USS sftp: {v} ops@jump1",
        ],
    ),
    (
        "hsm_key_check_value",
        g_kcv,
        [
            "LMK KCV after load: {v}",
            "ZMK KCV confirmed with Visa: {v}",
            "| ZPK | KCV {v} | rotated 2026-11 |",
            "kcv should read {v} on both HSMs",
        ],
    ),
    (
        "key_encrypted_under_lmk",
        g_under_lmk,
        [
            "ZPK under LMK (cryptogram, safe to store): {v} kcv {kcv}",
            "key block from the A0 command output: {v}",
            "encrypted ZMK under LMK 04-05: {v}",
            "| ZPK | {v} | {kcv} |",
        ],
    ),
    (
        "swift_bic_code",
        g_bic,
        [
            "correspondent BIC {v}",
            "MT103 to {v} failed NAK",
            "RMA authorisation for {v} added",
            "BIC: {v}",
        ],
    ),
    (
        "iban_reference",
        g_iban,
        [
            "test payment to {v}",
            "suspense account IBAN {v}",
            "the recon break was on {v}",
            "IBAN {v}",
        ],
    ),
    (
        "mq_message_id",
        g_msgid,
        [
            "stuck msg MsgId {v} on PAY.IN.DLQ",
            "dmpmqmsg showed MSGID {v}",
            "MsgId={v}",
            "resend {v} after fixing the MQMD format",
        ],
    ),
    (
        "db2_luwid",
        g_luw,
        [
            "deadlock victim LUWID {v}",
            "-DIS THREAD showed LUW-ID {v}",
            "cancel thread with LUWID {v}",
            "luwid={v}",
        ],
    ),
    (
        "cics_transaction_id",
        g_tran,
        [
            "tran {v} abending ASRA since the deploy",
            "CEMT SET TRAN({v}) DISABLED",
            "new tranid {v} for the balance enquiry",
            "| {v} | PAYENQ1 | CICSPRD1 |",
        ],
    ),
    (
        "jes_job_number",
        g_job,
        [
            "PAYNITE {v} ended CC 0012",
            "$C {v}",
            "see SYSOUT of {v}",
            "{v} flushed, rerun from STEP030",
        ],
    ),
    (
        "dasd_volser",
        g_vol,
        [
            "GDG went to volume {v}",
            "VOL=SER={v}",
            "volser {v} full again",
            "migrate off {v}",
        ],
    ),
    (
        "cpc_serial_number",
        g_cpc,
        [
            "z16 CPC serial {v}",
            "IBM ticket needs machine serial {v}",
            "serial: {v}",
            "HMC shows {v} for the DR box",
        ],
    ),
    (
        "change_ticket_id",
        g_chg,
        [
            "RACF cleanup under {v}",
            "linked to {v}",
            "{v} approved for Sat",
            "see {v}",
        ],
    ),
    (
        "stripe_publishable_key",
        g_pk,
        [
            "publishable key for the card form (public): {v}",
            "STRIPE_PUBLISHABLE_KEY={v}",
            "frontend uses {v}",
            "pk in the JS bundle {v}",
        ],
    ),
    (
        "recaptcha_site_key",
        g_site,
        [
            "reCAPTCHA site key for online banking login {v}",
            'data-sitekey="{v}"',
            "site key (public): {v}",
            "RECAPTCHA_SITE_KEY={v}",
        ],
    ),
    (
        "documented_test_card_pan",
        g_fixed("4111111111111111", "5555555555554444", "4000000000000002"),
        [
            "use test card {v} on the sandbox gateway",
            "PAN {v} exp 12/30 cvv 123 (network test card)",
            "regression suite card {v}",
            "{v}",
        ],
    ),
    (
        "masked_pan",
        g_pan_mask,
        [
            "dispute on card {v}",
            "PAN {v} declined RC 05",
            "log shows {v}",
            "| {v} | chargeback |",
        ],
    ),
    (
        "revoked_github_pat_stated_revoked",
        g_ghp,
        [
            "leaked token {v} was revoked by GitHub secret scanning, dead now",
            "REVOKED: {v} (rotated 2026-11-02)",
            "old PAT {v} - revoked, kept for the incident record",
            "{v} <- revoked, do not use",
        ],
    ),
    (
        "ldap_ssha_hash",
        g_ssha,
        [
            "userPassword: {v}",
            "ldif export line userPassword:: {v}",
            "hash for svc-racfsync in the directory: {v}",
            "{v}",
        ],
    ),
    (
        "bcrypt_hash",
        g_bcrypt,
        [
            "admin_pw_hash: {v}",
            "htpasswd entry zcadmin:{v}",
            "bcrypt hash stored {v}",
            "{v}",
        ],
    ),
    (
        "ansible_vault_blob",
        g_avault,
        [
            "db2_password: !vault |\n  {v}",
            "{v}",
            "encrypted with ansible-vault:\n{v}",
            "vault blob for mq creds:\n{v}",
        ],
    ),
    (
        "kafka_cluster_id",
        g_kcid,
        [
            "kafka cluster id {v}",
            "Cluster ID: {v}",
            "CLUSTER_ID={v}",
            "meta.properties cluster.id={v}",
        ],
    ),
    (
        "kafka_config_provider_ref",
        g_fixed(
            "${file:/etc/kafka/secrets.properties:sasl.password}",
            "${vault:secret/kafka/cdc:password}",
            "${env:KAFKA_PW}",
        ),
        [
            'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="cdc-db2" password="{v}";',
            "ssl.keystore.password={v}",
            "connector uses {v}",
            "password={v}",
        ],
    ),
    (
        "arqc_cryptogram_log",
        g_hex16,
        [
            "ARQC {v} failed verify, check MDK",
            "9F26={v}",
            "ARPC returned {v}",
            "MAC on the 0200 was {v}",
        ],
    ),
    (
        "container_image_digest",
        g_digest,
        [
            "zowe image pinned at {v}",
            "kafka-connect-mq@{v}",
            "digest {v}",
            "image: icr.io/zcee/server@{v}",
        ],
    ),
    (
        "safkeyring_reference",
        g_fixed(
            "safkeyring://ZCSRV/ZCKeyring",
            "safkeyring://MQPRD/QMPRD1RING",
            "safkeyringhw://PAYSRV/PayRing",
        ),
        [
            "keystore location {v}, password is just 'password' as RACF ignores it",
            '<keyStore id="defaultKeyStore" location="{v}" type="JCERACFKS" password="password"/>',
            "keyring {v}",
            "ssl.keystore.location={v}",
        ],
    ),
    (
        "password_change_date_notice",
        g_date,
        [
            "PRODBAT pw last changed {v}, next due in 90d",
            "RACF says PASS-DATE={v} for CICSRGN",
            "rotate batch IDs before {v}",
            "Passwort von DB2BAT1 läuft am {v} ab",
        ],
    ),
    (
        "cobol_copybook_password_field",
        g_fixed("WS-PASSWORD", "LK-USER-PWD", "CA-PASSTICKET"),
        [
            "05 {v}    PIC X(8) VALUE SPACES.",
            "MOVE SPACES TO {v} before the EXEC CICS SIGNON",
            "field {v} is only populated in memory, never logged",
            "copybook PAYSIGN has {v} PIC X(100)",
        ],
    ),
    (
        "ebcdic_hex_dump",
        g_ebcdic,
        [
            "record dump: {v}",
            "+0000 {v}",
            "SYSUDUMP shows {v} at the ASRA",
            "{v}",
        ],
    ),
    (
        "secrets_manager_arn",
        g_arn,
        [
            "creds in {v}",
            "SecretId={v}",
            "aws secretsmanager get-secret-value --secret-id {v}",
            "lambda reads {v}",
        ],
    ),
    (
        "aws_access_key_id_alone",
        g_akia,
        [
            "key id {v} belongs to the offload role user",
            "CloudTrail shows calls from {v}",
            "deactivate access key {v} next week",
            "access key ID: {v}",
        ],
    ),
    (
        "key_ceremony_id",
        g_kcid2,
        [
            "ceremony {v}: 3 custodians, dual control ok, no clear comps written down",
            "minutes of {v} uploaded",
            "{v} scheduled DC2 09:00",
            "Schlüsselzeremonie {v} abgeschlossen",
        ],
    ),
    (
        "npm_integrity_hash",
        g_npm,
        [
            '"integrity": "{v}"',
            "zowe cli tgz integrity {v}",
            "lockfile integrity {v}",
            "{v}",
        ],
    ),
    (
        "keytab_path_reference",
        g_fixed("/etc/security/keytabs/svc_mq.keytab", "/u/zcee/krb5.keytab"),
        [
            "kinit -kt {v} svc_mq@BANK.INTERNAL",
            "keytab at {v}",
            "principal uses {v}",
            "KRB5_KTNAME={v}",
        ],
    ),
    (
        "pgp_key_fingerprint",
        g_pgp,
        [
            "PGP key for settlement files fingerprint {v}",
            "import public key {v}",
            "fpr {v}",
            "gpg --recv-keys shows {v}",
        ],
    ),
]


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for t in templates:
                d = gen(r)
                text = t.format(**d)
                assert d["v"] in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": d["v"]})
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
