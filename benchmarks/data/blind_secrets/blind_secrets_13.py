# ruff: noqa: E501, SIM905
"""Blind secret corpus 13: teams that do not write in English first.

Memories written by developers in German, Spanish, French, Portuguese, Italian, Dutch, Polish,
Russian, Turkish, Japanese, Chinese, Korean, Vietnamese and Hindi, mixed with English tech words
the way real people write, about the credentials of their services: in prose, in short lists and
in pasted config (.env, YAML, JSON, INI, shell). Next to them, the same languages' look-alikes:
public keys and ids, hashes and digests, placeholders and references to a vault, masked or
encrypted values, and talk about passwords and keys that contains none.

Written blind on 2026-12-06: the author did not read the detector, its tests or any earlier corpus.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_13.py /tmp/blind13.jsonl
    (without an argument the JSONL goes to stdout)

Every random value comes from random.Random(SEED) inside corpus(); none is a real credential.

Kinds, secret:
    provider tokens: github_pat_classic, github_pat_fine_grained, gitlab_pat, slack_bot_token,
    slack_user_token, stripe_live_secret_key, stripe_restricted_key, stripe_webhook_secret,
    openai_api_key, anthropic_api_key, gemini_api_key, google_oauth_client_secret,
    sendgrid_api_key, npm_token, pypi_token, vault_token, terraform_cloud_token, docker_hub_pat,
    telegram_bot_token, discord_bot_token, shopify_admin_token, mailgun_api_key,
    new_relic_user_key, hugging_face_token, databricks_token, digitalocean_token,
    sentry_user_token, okta_api_token, postman_api_key, grafana_service_account_token,
    tailscale_auth_key, linear_api_key, notion_integration_token, figma_pat,
    doppler_service_token, pulumi_access_token, netlify_pat, atlassian_api_token,
    sonarqube_token, bitbucket_app_password, cloudflare_api_token, datadog_api_key,
    algolia_admin_key, kakao_rest_api_key, line_channel_secret, wechat_app_secret,
    naver_client_secret, yandex_oauth_token, vk_access_token, mercadopago_access_token,
    razorpay_key_secret, toss_secret_key, mollie_live_key, przelewy24_api_key,
    payu_client_secret, yookassa_secret_key, iyzico_secret_key, vnpay_hash_secret,
    momo_secret_key, alibaba_accesskey_secret, tencent_secret_key, dingtalk_sign_secret,
    recaptcha_secret_key, fcm_legacy_server_key, jenkins_api_token, heroku_api_key,
    twilio_auth_token, mapbox_secret_token, supabase_service_role_key, jwt_signing_secret,
    django_secret_key, rails_secret_key_base, azure_openai_key, age_secret_key,
    eth_private_key, nostr_nsec
    hand-written: aws_secret_access_key, postgres_url_password, mysql_url_password,
    mongodb_srv_password, redis_url_password, amqp_url_password, rsa_private_key_pem,
    openssh_private_key, ec_private_key, gcp_service_account_private_key,
    azure_storage_account_key, bip39_seed_phrase, totp_seed, session_cookie, wifi_password,
    server_root_password, db_password_prose, admin_panel_password, smtp_app_password,
    android_keystore_password, ldap_bind_password, ftp_password, apple_app_specific_password,
    pfx_password, basic_auth_header, bearer_token_header, kubeconfig_token,
    k8s_secret_base64, wireguard_private_key, dingtalk_webhook_token, feishu_webhook_token,
    slack_webhook_url, discord_webhook_url, url_access_token_param

Kinds, benign:
    public or identifying values: stripe_publishable_key, mapbox_public_token,
    algolia_search_only_key, google_oauth_client_id, recaptcha_site_key, vapid_public_key,
    twilio_account_sid, razorpay_key_id, toss_client_key, mercadopago_public_key,
    mollie_profile_id, wechat_appid, naver_client_id, line_channel_id, discord_app_public_key,
    aws_account_id, azure_tenant_id, gcp_private_key_id, kms_key_arn, git_commit_sha,
    sha256_checksum, docker_image_digest, npm_integrity_hash, go_sum_hash, eth_tx_hash,
    eth_address, btc_address, ipfs_cid, s3_etag, request_id_uuid, idempotency_key,
    ssh_public_key, ssh_host_fingerprint, pgp_fingerprint, wireguard_public_key,
    age_public_key, nostr_npub, jwt_header_only, jwks_kid, api_key_hash_fingerprint,
    slack_channel_id, stripe_customer_id, ga_measurement_id, vnpay_tmn_code,
    p24_merchant_id, payu_pos_id, yandex_metrika_counter, webpack_content_hash
    hand-written: aws_docs_example_key, placeholder_env_example, env_var_reference,
    github_actions_secret_ref, vault_path_ref, onepassword_ref, aws_secretsmanager_ref,
    k8s_secret_key_ref, helm_template_ref, masked_token, redacted_value, sops_encrypted_value,
    ansible_vault_blob, sealed_secret_ciphertext, pem_public_key, x509_certificate,
    revoked_token_stated, password_policy_talk, password_reset_procedure, key_rotation_talk,
    leak_cleanup_note, placeholder_db_url, stripe_test_card, music_key, keyboard_key,
    database_primary_key, llm_token_count, lexer_token, i18n_password_label,
    random_seed_experiment, secret_other_sense, password_form_field, redis_key_name,
    cache_key, license_key_talk, password_talk_no_value, terraform_reference,
    docker_login_stdin, placeholder_webhook_url, telegram_chat_id, configmap_base64_nonsecret,
    git_lfs_pointer, kms_alias_ref, token_ttl_talk, api_key_docs_link, api_key_restriction_talk,
    password_hash_algorithm_talk
"""

import base64
import json
import random
import sys
import uuid

SEED = 513013

UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
DIG = "0123456789"
ALNUM = UP + LO + DIG
UPDIG = UP + DIG
LODIG = LO + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
DJANGO = LO + DIG + "!@#$%^&*(-_=+)"

LANGS = ["de", "es", "fr", "pt", "it", "nl", "pl", "ru", "tr", "ja", "zh", "ko", "vi", "hi"]

WHO = {
    "de": ["Jonas", "Lena", "Matthias"],
    "es": ["Lucía", "Javi", "Carmen"],
    "fr": ["Camille", "Théo", "Nathalie"],
    "pt": ["Rafa", "Bia", "Thiago"],
    "it": ["Giulia", "Marco", "Alessandro"],
    "nl": ["Sanne", "Daan", "Bram"],
    "pl": ["Kasia", "Tomek", "Paweł"],
    "ru": ["Дима", "Оля", "Серёга"],
    "tr": ["Emre", "Zeynep", "Burak"],
    "ja": ["田中", "佐藤", "鈴木"],
    "zh": ["小王", "李工", "老陈"],
    "ko": ["민수", "지은", "현우"],
    "vi": ["anh Tuấn", "chị Lan", "Minh"],
    "hi": ["Rohit", "Priya", "Aman"],
}

ENVS = ["prod", "staging", "production", "preprod", "prod-eu", "dev-shared"]

# Secret templates: {svc} service, {val} secret, {var} env var, {env}, {who}.
SECRET_TPL = {
    "de": [
        "{svc}-Token für {env}: {val}\nNicht ins Repo committen, läuft erst Ende Q1 ab.",
        "Hab mit {who} den {svc} Key neu generiert, der alte ist weg. Neuer Wert: {val} (steht auch in der .env auf dem Build-Server)",
        "# .env ({env}) – Zugangsdaten {svc}\n{var}={val}",
        "Zugang {svc}:\n- Umgebung: {env}\n- Key: {val}\n- Owner: {who}",
        "Merken: der Deploy-Job braucht {var}, aktuell `{val}`. Wenn {svc} 401 liefert, ist er abgelaufen.",
        'TODO morgen: {svc} Secret in Vault verschieben. Bis dahin hartkodiert in config/{env}.yaml:\n  api_key: "{val}"',
    ],
    "es": [
        "Token de {svc} para {env}: {val} — no lo subas al repo, porfa.",
        "{who} me pasó la API key de {svc} por Slack: {val}. Hay que rotarla después de la demo.",
        '# credenciales {svc} ({env})\nexport {var}="{val}"',
        "Acceso a {svc}\n* entorno: {env}\n* clave: {val}\n* responsable: {who}",
        "Ojo: el pipeline de {env} usa {var}={val}; si {svc} devuelve 401 es que caducó.",
        "Dejo anotado el secret de {svc} mientras migramos a Vault: {val}",
    ],
    "fr": [
        "Clé {svc} ({env}) : {val}\nÀ ne pas committer, {who} la régénère le mois prochain.",
        "J'ai recréé le token {svc} avec {who}, l'ancien est supprimé. Nouveau : {val}",
        "# .env.{env} — identifiants {svc}\n{var}={val}",
        "Accès {svc} :\n- env : {env}\n- token : {val}\n- contact : {who}",
        "Note pour plus tard : le job de déploiement lit {var} (valeur actuelle {val}). Si {svc} renvoie 403, c'est qu'il a expiré.",
        "En attendant le passage à Vault, le secret {svc} est en dur dans settings_{env}.py :\n{var} = '{val}'",
    ],
    "pt": [
        "Token do {svc} em {env}: {val} — não commita isso, pelo amor de Deus.",
        "{who} gerou uma chave nova no {svc} hoje, a antiga foi revogada. A nova é {val}",
        "# credenciais {svc} ({env})\n{var}={val}",
        "Acesso {svc}\n- ambiente: {env}\n- chave: {val}\n- dono: {who}",
        "Lembrete: a pipeline de {env} precisa do {var}, valor atual `{val}`. Se o {svc} der 401, expirou.",
        "Anotando aqui a chave secreta do {svc} até a gente configurar o Secrets Manager: {val}",
    ],
    "it": [
        "Token {svc} per {env}: {val} (non committarlo, scade a marzo)",
        "Con {who} abbiamo rigenerato la chiave {svc}, quella vecchia è revocata. Nuova chiave: {val}",
        "# credenziali {svc} — ambiente {env}\n{var}={val}",
        "Accesso {svc}:\n- ambiente: {env}\n- chiave: {val}\n- referente: {who}",
        "Promemoria: il job di deploy legge {var}, al momento vale {val}. Se {svc} risponde 401 è scaduto.",
        "Finché non spostiamo tutto su Vault, il secret di {svc} è scritto qui: {val}",
    ],
    "nl": [
        "{svc} token voor {env}: {val} — niet in git zetten aub",
        "Samen met {who} de {svc} key opnieuw aangemaakt, de oude is ingetrokken. Nieuwe: {val}",
        "# {svc} credentials ({env})\n{var}={val}",
        "Toegang {svc}:\n- omgeving: {env}\n- sleutel: {val}\n- eigenaar: {who}",
        "Let op: de deploy-pipeline leest {var}, nu nog {val}. Als {svc} een 401 geeft is hij verlopen.",
        "Tijdelijk hier genoteerd tot we naar Vault gaan — {svc} secret: {val}",
    ],
    "pl": [
        "Token {svc} na {env}: {val} — nie wrzucać do repo!",
        "{who} wygenerował nowy klucz w {svc}, stary unieważniony. Nowy: {val}",
        "# dane dostępowe {svc} ({env})\n{var}={val}",
        "Dostęp do {svc}:\n- środowisko: {env}\n- klucz: {val}\n- właściciel: {who}",
        "Uwaga: pipeline na {env} czyta {var}, aktualnie `{val}`. Jak {svc} zwraca 401, to wygasł.",
        "Zapisuję tu sekret {svc}, dopóki nie przeniesiemy wszystkiego do Vaulta: {val}",
    ],
    "ru": [
        "Токен {svc} для {env}: {val} — в репу не коммитить!",
        "Перевыпустили ключ {svc} (делал {who}), старый отозван. Новый: {val}",
        "# доступы {svc} ({env})\n{var}={val}",
        "Доступ к {svc}:\n- окружение: {env}\n- ключ: {val}\n- ответственный: {who}",
        "На заметку: деплой-джоба читает {var}, сейчас там `{val}`. Если {svc} отдаёт 401 — протух.",
        "Пока не переехали в Vault, секрет {svc} лежит тут: {val}",
    ],
    "tr": [
        "{svc} token ({env}): {val} — repoya commit etmeyin lütfen",
        "{who} ile {svc} anahtarını yeniden oluşturduk, eskisi iptal. Yenisi: {val}",
        "# {svc} erişim bilgileri ({env})\n{var}={val}",
        "{svc} erişimi:\n- ortam: {env}\n- anahtar: {val}\n- sorumlu: {who}",
        "Not: {env} pipeline'ı {var} değişkenini okuyor, şu anki değer `{val}`. {svc} 401 dönerse süresi dolmuştur.",
        "Vault'a taşıyana kadar {svc} secret'ı burada dursun: {val}",
    ],
    "ja": [
        "{svc}のトークン（{env}）: {val}\nリポジトリにはコミットしないこと。",
        "{who}さんと{svc}のキーを再発行した。古いのは無効化済み。新しいキー: {val}",
        "# {svc} 認証情報（{env}）\n{var}={val}",
        "{svc}アクセス情報\n・環境: {env}\n・キー: {val}\n・担当: {who}",
        "メモ: {env}のデプロイジョブは{var}を参照。現在の値は `{val}`。{svc}が401を返したら期限切れ。",
        "Vaultに移すまでの間、{svc}のシークレットはここに書いておく: {val}",
    ],
    "zh": [
        "{svc} 的 token（{env}）：{val}\n别提交到仓库！",
        "和{who}一起重新生成了 {svc} 的密钥，旧的已经作废。新的：{val}",
        "# {svc} 凭证（{env}）\n{var}={val}",
        "{svc} 访问信息：\n- 环境：{env}\n- 密钥：{val}\n- 负责人：{who}",
        "备注：{env} 的部署流水线读取 {var}，当前值 `{val}`。如果 {svc} 返回 401 就是过期了。",
        "在迁移到 Vault 之前，{svc} 的 secret 先记在这里：{val}",
    ],
    "ko": [
        "{svc} 토큰 ({env}): {val}\n레포에 커밋하지 마세요!",
        "{who}님이랑 {svc} 키 재발급했어요. 예전 건 폐기됨. 새 키: {val}",
        "# {svc} 인증 정보 ({env})\n{var}={val}",
        "{svc} 접근 정보\n- 환경: {env}\n- 키: {val}\n- 담당자: {who}",
        "메모: {env} 배포 파이프라인이 {var}를 읽음. 현재 값 `{val}`. {svc}에서 401 나오면 만료된 거.",
        "Vault로 옮기기 전까지 {svc} 시크릿은 여기 적어둠: {val}",
    ],
    "vi": [
        "Token {svc} cho {env}: {val} — đừng commit lên repo nha.",
        "Mình với {who} vừa tạo lại key {svc}, key cũ đã thu hồi. Key mới: {val}",
        "# thông tin đăng nhập {svc} ({env})\n{var}={val}",
        "Truy cập {svc}:\n- môi trường: {env}\n- khóa: {val}\n- phụ trách: {who}",
        "Ghi chú: pipeline {env} đọc biến {var}, giá trị hiện tại `{val}`. Nếu {svc} trả 401 là hết hạn rồi.",
        "Tạm ghi secret của {svc} ở đây cho tới khi chuyển sang Vault: {val}",
    ],
    "hi": [
        "{svc} का token ({env}): {val} — इसे repo में commit मत करना।",
        "{who} के साथ {svc} की key regenerate की, पुरानी revoke हो गई। नई key: {val}",
        "# {svc} credentials ({env}) — सिर्फ़ server पर रखना\n{var}={val}",
        "{svc} access:\n- environment: {env}\n- key: {val}\n- owner: {who}",
        "Note: {env} wala deploy job {var} padhta hai, abhi value `{val}` hai. Agar {svc} 401 de to expire ho gaya.",
        "Vault में shift करने तक {svc} का secret यहीं लिख रहा हूँ: {val}",
    ],
}

# Benign templates: {svc}, {what} (what the value is), {val}, {var}, {env}, {who}.
BENIGN_TPL = {
    "de": [
        "{svc} {what} für {env}: {val}",
        "{who} hat nach dem {what} von {svc} gefragt – das ist {val}.",
        "# {svc} ({env}) – {what}\n{var}={val}",
        "Notiz {svc}:\n- {what}: {val}\n- Umgebung: {env}",
        "Für den Bugreport: {svc} {what} = {val}",
    ],
    "es": [
        "{what} de {svc} ({env}): {val}",
        "{who} preguntó por el {what} de {svc}; es este: {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "Datos de {svc}:\n* {what}: {val}\n* entorno: {env}",
        "Para el ticket: {svc} {what} = {val}",
    ],
    "fr": [
        "{what} {svc} ({env}) : {val}",
        "{who} demandait le {what} de {svc}, le voici : {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "Infos {svc} :\n- {what} : {val}\n- env : {env}",
        "Pour le rapport de bug : {svc} {what} = {val}",
    ],
    "pt": [
        "{what} do {svc} ({env}): {val}",
        "{who} perguntou qual é o {what} do {svc}. É {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "Dados do {svc}:\n- {what}: {val}\n- ambiente: {env}",
        "Pro chamado: {svc} {what} = {val}",
    ],
    "it": [
        "{what} di {svc} ({env}): {val}",
        "{who} chiedeva il {what} di {svc}: è {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "Dati {svc}:\n- {what}: {val}\n- ambiente: {env}",
        "Per la segnalazione: {svc} {what} = {val}",
    ],
    "nl": [
        "{svc} {what} ({env}): {val}",
        "{who} vroeg naar de {what} van {svc}, dat is {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "Gegevens {svc}:\n- {what}: {val}\n- omgeving: {env}",
        "Voor het bugticket: {svc} {what} = {val}",
    ],
    "pl": [
        "{svc} {what} ({env}): {val}",
        "{who} pytał o {what} z {svc} — to jest {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "Dane {svc}:\n- {what}: {val}\n- środowisko: {env}",
        "Do zgłoszenia: {svc} {what} = {val}",
    ],
    "ru": [
        "{svc} {what} ({env}): {val}",
        "{who} спрашивал {what} от {svc} — вот он: {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "Данные {svc}:\n- {what}: {val}\n- окружение: {env}",
        "Для баг-репорта: {svc} {what} = {val}",
    ],
    "tr": [
        "{svc} {what} ({env}): {val}",
        "{who} {svc} {what} değerini sordu, şu: {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "{svc} bilgileri:\n- {what}: {val}\n- ortam: {env}",
        "Bug kaydı için: {svc} {what} = {val}",
    ],
    "ja": [
        "{svc}の{what}（{env}）: {val}",
        "{who}さんに{svc}の{what}を聞かれたので共有: {val}",
        "# {svc} — {what}（{env}）\n{var}={val}",
        "{svc}情報\n・{what}: {val}\n・環境: {env}",
        "バグ報告用: {svc} {what} = {val}",
    ],
    "zh": [
        "{svc} 的 {what}（{env}）：{val}",
        "{who}问 {svc} 的 {what} 是多少，是这个：{val}",
        "# {svc} — {what}（{env}）\n{var}={val}",
        "{svc} 信息：\n- {what}：{val}\n- 环境：{env}",
        "提 bug 用：{svc} {what} = {val}",
    ],
    "ko": [
        "{svc} {what} ({env}): {val}",
        "{who}님이 {svc} {what} 물어봐서 공유: {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "{svc} 정보\n- {what}: {val}\n- 환경: {env}",
        "버그 리포트용: {svc} {what} = {val}",
    ],
    "vi": [
        "{what} của {svc} ({env}): {val}",
        "{who} hỏi {what} của {svc}, đây nè: {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "Thông tin {svc}:\n- {what}: {val}\n- môi trường: {env}",
        "Để ghi vào ticket: {svc} {what} = {val}",
    ],
    "hi": [
        "{svc} का {what} ({env}): {val}",
        "{who} ने {svc} का {what} पूछा था, ये है: {val}",
        "# {svc} — {what} ({env})\n{var}={val}",
        "{svc} info:\n- {what}: {val}\n- environment: {env}",
        "Bug report ke liye: {svc} {what} = {val}",
    ],
}

BIP39 = (
    "abandon ability able about above absent absorb abstract absurd abuse access accident account "
    "accuse achieve acid acoustic acquire across act action actor actress actual adapt add addict "
    "address adjust admit adult advance advice aerobic affair afford afraid again age agent agree "
    "ahead aim air airport aisle alarm album alcohol alert alien all alley allow almost alone alpha "
    "already also alter always amateur amazing among amount amused analyst anchor ancient anger "
    "angle angry animal ankle announce annual another answer antenna antique anxiety any apart "
    "apology appear apple approve april arch arctic area arena argue arm armed armor army around "
    "arrange arrest arrive arrow art artist artwork ask aspect assault asset assist assume asthma "
    "athlete atom attack attend attitude attract auction audit august aunt author auto autumn "
    "average avocado avoid awake aware away awesome awful awkward axis baby bachelor bacon badge "
    "bag balance balcony ball bamboo banana banner bar barely bargain barrel base basic basket "
    "battle beach bean beauty because become beef before begin behave behind believe below belt "
    "bench benefit best betray better between beyond bicycle bid bike bind biology bird birth "
    "bitter black blade blame blanket blast bleak bless blind blood blossom blue blur blush board "
    "boat body boil bomb bone bonus book boost border boring borrow boss bottom bounce box boy "
    "brain brand brass brave bread breeze brick bridge brief bright bring brisk broccoli broken "
    "bronze broom brother brown brush bubble buddy budget buffalo build bulb bulk bullet bundle "
    "cabbage cabin cable cactus cage cake call calm camera camp canal cancel candy cannon canoe "
    "canvas canyon capable capital captain carbon card cargo carpet carry cart case cash casino "
    "castle casual catalog catch category cattle caught cause caution cave ceiling celery cement"
).split()

PW_WORDS = [
    "Sommer",
    "Bremen",
    "Kaffee",
    "Sol",
    "Playa",
    "Lune",
    "Fromage",
    "Praia",
    "Gato",
    "Mare",
    "Fiets",
    "Kwiatek",
    "Zima",
    "Медведь",
    "Kedi",
    "Sakura",
    "Tora",
    "Panda",
    "Hangang",
    "Phở",
    "Chai",
    "Masala",
    "Tigre",
    "Nuvola",
    "Wiatr",
    "Deniz",
    "Tulp",
    "Orzeł",
    "Drache",
    "Falcon",
]


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def s(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    def d(n: int) -> str:
        return rng.choice("123456789") + s(DIG, n - 1)

    def uid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def b64url(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def b64b(n: int, pad: bool = True) -> str:
        out = base64.b64encode(rng.randbytes(n)).decode()
        return out if pad else out.rstrip("=")

    def pw() -> str:
        a, b = rng.sample(PW_WORDS, 2)
        return f"{a}{rng.choice(['!', '#', '_', '.', '$', '%', '&'])}{b}{d(2)}{rng.choice('!?*#@')}"

    def pw_strong(n: int = 20) -> str:
        return s(ALNUM + "!#%&*+-.=?@^_", n)

    def jwt(payload: dict, alg: str = "HS256") -> str:
        head = b64url(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
        body = b64url(json.dumps(payload, separators=(",", ":")).encode())
        sig_len = 43 if alg == "HS256" else 342
        return f"{head}.{body}.{s(URLSAFE, sig_len)}"

    def fill(tpl: str, **kw: str) -> str:
        out = tpl
        for k, v in kw.items():
            out = out.replace("{" + k + "}", v)
        return out

    def pem_lines(n_full: int, last: int, start: str = "") -> str:
        lines = []
        first = start + s(B64, 64 - len(start))
        lines.append(first)
        for _ in range(n_full - 1):
            lines.append(s(B64, 64))
        lines.append(s(B64, last) + "==" if last else "")
        return "\n".join(x for x in lines if x)

    rows: list[dict] = []

    def add(label: str, kind: str, text: str, value: str) -> None:
        assert value in text, (kind, value, text)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    # ------------------------------------------------------------------ generic secrets
    mapbox_user = b64url(
        json.dumps(
            {"u": "geo-team-" + s(LODIG, 4), "a": s(LODIG, 25)}, separators=(",", ":")
        ).encode()
    )
    supa_ref = s(LO, 20)
    secret_kinds = [
        ("github_pat_classic", "GitHub", "GITHUB_TOKEN", lambda: "ghp_" + s(ALNUM, 36), 3),
        (
            "github_pat_fine_grained",
            "GitHub",
            "GH_PAT",
            lambda: "github_pat_11" + s(UPDIG, 20) + "_" + s(ALNUM, 59),
            2,
        ),
        ("gitlab_pat", "GitLab", "GITLAB_TOKEN", lambda: "glpat-" + s(URLSAFE, 20), 2),
        (
            "slack_bot_token",
            "Slack Bot",
            "SLACK_BOT_TOKEN",
            lambda: f"xoxb-{d(12)}-{d(13)}-{s(ALNUM, 24)}",
            2,
        ),
        (
            "slack_user_token",
            "Slack",
            "SLACK_USER_TOKEN",
            lambda: f"xoxp-{d(12)}-{d(12)}-{d(13)}-{s(HEX, 32)}",
            2,
        ),
        (
            "stripe_live_secret_key",
            "Stripe",
            "STRIPE_SECRET_KEY",
            lambda: "sk_live_51" + s(ALNUM, 97),
            3,
        ),
        (
            "stripe_restricted_key",
            "Stripe (restricted key)",
            "STRIPE_RESTRICTED_KEY",
            lambda: "rk_live_51" + s(ALNUM, 97),
            2,
        ),
        (
            "stripe_webhook_secret",
            "Stripe Webhook",
            "STRIPE_WEBHOOK_SECRET",
            lambda: "whsec_" + s(ALNUM, 32),
            2,
        ),
        (
            "openai_api_key",
            "OpenAI",
            "OPENAI_API_KEY",
            lambda: "sk-proj-" + s(URLSAFE, 58) + "T3BlbkFJ" + s(URLSAFE, 58),
            3,
        ),
        (
            "anthropic_api_key",
            "Anthropic",
            "ANTHROPIC_API_KEY",
            lambda: "sk-ant-api03-" + s(URLSAFE, 93) + "AA",
            3,
        ),
        ("gemini_api_key", "Gemini API", "GEMINI_API_KEY", lambda: "AIza" + s(URLSAFE, 35), 2),
        (
            "google_oauth_client_secret",
            "Google OAuth client",
            "GOOGLE_CLIENT_SECRET",
            lambda: "GOCSPX-" + s(URLSAFE, 28),
            2,
        ),
        (
            "sendgrid_api_key",
            "SendGrid",
            "SENDGRID_API_KEY",
            lambda: "SG." + s(URLSAFE, 22) + "." + s(URLSAFE, 43),
            2,
        ),
        ("npm_token", "npm", "NPM_TOKEN", lambda: "npm_" + s(ALNUM, 36), 2),
        (
            "pypi_token",
            "PyPI",
            "PYPI_API_TOKEN",
            lambda: "pypi-AgEIcHlwaS5vcmcCJD" + s(URLSAFE, 64),
            2,
        ),
        ("vault_token", "HashiCorp Vault", "VAULT_TOKEN", lambda: "hvs.CAESI" + s(URLSAFE, 86), 2),
        (
            "terraform_cloud_token",
            "Terraform Cloud",
            "TF_TOKEN_app_terraform_io",
            lambda: s(ALNUM, 14) + ".atlasv1." + s(ALNUM, 67),
            2,
        ),
        (
            "docker_hub_pat",
            "Docker Hub",
            "DOCKERHUB_TOKEN",
            lambda: "dckr_pat_" + s(URLSAFE, 27),
            2,
        ),
        (
            "telegram_bot_token",
            "Telegram Bot",
            "TELEGRAM_BOT_TOKEN",
            lambda: d(10) + ":AA" + s(URLSAFE, 33),
            2,
        ),
        (
            "discord_bot_token",
            "Discord Bot",
            "DISCORD_TOKEN",
            lambda: "MT" + s(ALNUM, 24) + "." + s(URLSAFE, 6) + "." + s(URLSAFE, 38),
            2,
        ),
        (
            "shopify_admin_token",
            "Shopify Admin API",
            "SHOPIFY_ACCESS_TOKEN",
            lambda: "shpat_" + s(HEX, 32),
            2,
        ),
        (
            "mailgun_api_key",
            "Mailgun",
            "MAILGUN_API_KEY",
            lambda: s(HEX, 32) + "-" + s(HEX, 8) + "-" + s(HEX, 8),
            2,
        ),
        ("new_relic_user_key", "New Relic", "NEW_RELIC_API_KEY", lambda: "NRAK-" + s(UPDIG, 27), 2),
        ("hugging_face_token", "Hugging Face", "HF_TOKEN", lambda: "hf_" + s(ALNUM, 34), 2),
        ("databricks_token", "Databricks", "DATABRICKS_TOKEN", lambda: "dapi" + s(HEX, 32), 2),
        (
            "digitalocean_token",
            "DigitalOcean",
            "DIGITALOCEAN_TOKEN",
            lambda: "dop_v1_" + s(HEX, 64),
            2,
        ),
        ("sentry_user_token", "Sentry", "SENTRY_AUTH_TOKEN", lambda: "sntryu_" + s(HEX, 64), 2),
        ("okta_api_token", "Okta", "OKTA_API_TOKEN", lambda: "00" + s(URLSAFE, 40), 2),
        (
            "postman_api_key",
            "Postman",
            "POSTMAN_API_KEY",
            lambda: "PMAK-" + s(HEX, 24) + "-" + s(HEX, 34),
            2,
        ),
        (
            "grafana_service_account_token",
            "Grafana",
            "GRAFANA_SA_TOKEN",
            lambda: "glsa_" + s(ALNUM, 32) + "_" + s(HEX, 8),
            2,
        ),
        (
            "tailscale_auth_key",
            "Tailscale",
            "TS_AUTHKEY",
            lambda: "tskey-auth-k" + s(ALNUM, 10) + "CNTRL-" + s(ALNUM, 33),
            2,
        ),
        ("linear_api_key", "Linear", "LINEAR_API_KEY", lambda: "lin_api_" + s(ALNUM, 40), 2),
        (
            "notion_integration_token",
            "Notion",
            "NOTION_TOKEN",
            lambda: "ntn_" + d(11) + s(ALNUM, 35),
            2,
        ),
        ("figma_pat", "Figma", "FIGMA_TOKEN", lambda: "figd_" + s(URLSAFE, 40), 2),
        (
            "doppler_service_token",
            "Doppler",
            "DOPPLER_TOKEN",
            lambda: "dp.st.prd." + s(ALNUM, 43),
            2,
        ),
        ("pulumi_access_token", "Pulumi", "PULUMI_ACCESS_TOKEN", lambda: "pul-" + s(HEX, 40), 2),
        ("netlify_pat", "Netlify", "NETLIFY_AUTH_TOKEN", lambda: "nfp_" + s(ALNUM, 36), 2),
        (
            "atlassian_api_token",
            "Jira Cloud",
            "JIRA_API_TOKEN",
            lambda: "ATATT3xFfGF0" + s(URLSAFE, 160) + "=" + s(HEX, 8).upper(),
            2,
        ),
        ("sonarqube_token", "SonarQube", "SONAR_TOKEN", lambda: "squ_" + s(HEX, 40), 2),
        (
            "bitbucket_app_password",
            "Bitbucket",
            "BITBUCKET_APP_PASSWORD",
            lambda: "ATBB" + s(ALNUM, 28) + s(HEX, 8).upper(),
            2,
        ),
        (
            "cloudflare_api_token",
            "Cloudflare API",
            "CLOUDFLARE_API_TOKEN",
            lambda: s(URLSAFE, 40),
            2,
        ),
        ("datadog_api_key", "Datadog", "DD_API_KEY", lambda: s(HEX, 32), 2),
        (
            "algolia_admin_key",
            "Algolia Admin API key",
            "ALGOLIA_ADMIN_API_KEY",
            lambda: s(HEX, 32),
            2,
        ),
        ("kakao_rest_api_key", "Kakao REST API", "KAKAO_REST_API_KEY", lambda: s(HEX, 32), 2),
        (
            "line_channel_secret",
            "LINE channel secret",
            "LINE_CHANNEL_SECRET",
            lambda: s(HEX, 32),
            2,
        ),
        ("wechat_app_secret", "微信公众号 AppSecret", "WECHAT_APP_SECRET", lambda: s(HEX, 32), 2),
        (
            "naver_client_secret",
            "Naver client secret",
            "NAVER_CLIENT_SECRET",
            lambda: s(ALNUM, 10),
            2,
        ),
        (
            "yandex_oauth_token",
            "Yandex OAuth",
            "YANDEX_OAUTH_TOKEN",
            lambda: "y0_AgAAAAA" + s(URLSAFE, 49),
            2,
        ),
        ("vk_access_token", "VK API", "VK_ACCESS_TOKEN", lambda: "vk1.a." + s(URLSAFE, 80), 2),
        (
            "mercadopago_access_token",
            "Mercado Pago",
            "MP_ACCESS_TOKEN",
            lambda: f"APP_USR-{d(16)}-{d(6)}-{s(HEX, 32)}-{d(9)}",
            3,
        ),
        (
            "razorpay_key_secret",
            "Razorpay key_secret",
            "RAZORPAY_KEY_SECRET",
            lambda: s(ALNUM, 24),
            2,
        ),
        (
            "toss_secret_key",
            "Toss Payments secret key",
            "TOSS_SECRET_KEY",
            lambda: "live_sk_" + s(ALNUM, 24),
            2,
        ),
        ("mollie_live_key", "Mollie", "MOLLIE_API_KEY", lambda: "live_" + s(ALNUM, 30), 2),
        ("przelewy24_api_key", "Przelewy24 API", "P24_API_KEY", lambda: s(HEX, 32), 2),
        (
            "payu_client_secret",
            "PayU OAuth client_secret",
            "PAYU_CLIENT_SECRET",
            lambda: s(HEX, 32),
            2,
        ),
        (
            "yookassa_secret_key",
            "ЮKassa",
            "YOOKASSA_SECRET_KEY",
            lambda: "live_" + s(URLSAFE, 43),
            2,
        ),
        ("iyzico_secret_key", "iyzico secretKey", "IYZICO_SECRET_KEY", lambda: s(ALNUM, 32), 2),
        ("vnpay_hash_secret", "VNPay vnp_HashSecret", "VNP_HASH_SECRET", lambda: s(UP, 32), 2),
        ("momo_secret_key", "MoMo secretKey", "MOMO_SECRET_KEY", lambda: s(ALNUM, 32), 2),
        (
            "alibaba_accesskey_secret",
            "阿里云 AccessKey Secret",
            "ALIBABA_CLOUD_ACCESS_KEY_SECRET",
            lambda: s(ALNUM, 30),
            2,
        ),
        (
            "tencent_secret_key",
            "腾讯云 SecretKey",
            "TENCENTCLOUD_SECRET_KEY",
            lambda: s(ALNUM, 32),
            2,
        ),
        (
            "dingtalk_sign_secret",
            "钉钉机器人 加签",
            "DINGTALK_SECRET",
            lambda: "SEC" + s(HEX, 64),
            2,
        ),
        (
            "recaptcha_secret_key",
            "reCAPTCHA secret key",
            "RECAPTCHA_SECRET_KEY",
            lambda: "6L" + s(URLSAFE, 38),
            2,
        ),
        (
            "fcm_legacy_server_key",
            "FCM server key",
            "FCM_SERVER_KEY",
            lambda: "AAAA" + s(URLSAFE, 7) + ":APA91b" + s(URLSAFE, 134),
            2,
        ),
        ("jenkins_api_token", "Jenkins", "JENKINS_API_TOKEN", lambda: "11" + s(HEX, 32), 2),
        ("heroku_api_key", "Heroku", "HEROKU_API_KEY", lambda: "HRKU-AA" + s(URLSAFE, 58), 2),
        ("twilio_auth_token", "Twilio Auth Token", "TWILIO_AUTH_TOKEN", lambda: s(HEX, 32), 2),
        (
            "mapbox_secret_token",
            "Mapbox (secret sk. token)",
            "MAPBOX_SECRET_TOKEN",
            lambda: "sk." + mapbox_user + "." + s(URLSAFE, 22),
            2,
        ),
        (
            "supabase_service_role_key",
            "Supabase service_role",
            "SUPABASE_SERVICE_ROLE_KEY",
            lambda: jwt(
                {
                    "iss": "supabase",
                    "ref": supa_ref,
                    "role": "service_role",
                    "iat": 1718000000 + rng.randint(0, 9999999),
                    "exp": 2033000000 + rng.randint(0, 9999999),
                }
            ),
            2,
        ),
        ("jwt_signing_secret", "JWT", "JWT_SECRET", lambda: s(ALNUM, 48), 2),
        ("django_secret_key", "Django", "DJANGO_SECRET_KEY", lambda: s(DJANGO, 50), 2),
        ("rails_secret_key_base", "Rails", "SECRET_KEY_BASE", lambda: s(HEX, 128), 2),
        ("azure_openai_key", "Azure OpenAI", "AZURE_OPENAI_API_KEY", lambda: s(HEX, 32), 2),
        (
            "age_secret_key",
            "SOPS/age",
            "SOPS_AGE_KEY",
            lambda: "AGE-SECRET-KEY-1" + s(BECH.upper(), 58),
            2,
        ),
        (
            "eth_private_key",
            "deployer wallet",
            "DEPLOYER_PRIVATE_KEY",
            lambda: "0x" + s(HEX, 64),
            2,
        ),
        ("nostr_nsec", "Nostr", "NOSTR_NSEC", lambda: "nsec1" + s(BECH, 58), 2),
    ]
    p = 0
    for kind, svc, var, gen, n in secret_kinds:
        for _ in range(n):
            lang = LANGS[p % len(LANGS)]
            tpls = SECRET_TPL[lang]
            tpl = tpls[(p // len(LANGS) + p * 5) % len(tpls)]
            val = gen()
            text = fill(
                tpl, svc=svc, var=var, val=val, env=rng.choice(ENVS), who=rng.choice(WHO[lang])
            )
            add("secret", kind, text, val)
            p += 1

    # ------------------------------------------------------------------ hand-written secrets
    akid = "AKIA" + s(B32, 16)
    sak = s(B64, 40)
    add(
        "secret",
        "aws_secret_access_key",
        f"# ~/.aws/credentials（検証用アカウント、{rng.choice(WHO['ja'])}さん作成）\n[bastion]\naws_access_key_id = {akid}\naws_secret_access_key = {sak}\nregion = ap-northeast-1",
        sak,
    )
    akid = "AKIA" + s(B32, 16)
    sak = s(B64, 40)
    add(
        "secret",
        "aws_secret_access_key",
        f"IAM-User für den Backup-Cronjob angelegt. Access Key ID {akid}, Secret {sak}. Darf nur auf den S3-Bucket backups-eu schreiben.",
        sak,
    )
    akid = "AKIA" + s(B32, 16)
    sak = s(B64, 40)
    add(
        "secret",
        "aws_secret_access_key",
        f'export AWS_ACCESS_KEY_ID={akid}\nexport AWS_SECRET_ACCESS_KEY="{sak}"\n# ojo: usuario ci-deployer, tiene permisos de ECR y ECS',
        sak,
    )

    v = pw()
    add(
        "secret",
        "postgres_url_password",
        f"DATABASE_URL=postgres://app_rw:{v}@pg-main.internal.acme.de:5432/shop?sslmode=require\n# Produktiv-DB, nur lesend für Analytics nutzen!",
        v,
    )
    v = pw_strong(18)
    add(
        "secret",
        "postgres_url_password",
        f"Строка подключения к реплике для отчётов: postgresql://reporting:{v}@10.20.3.14:6432/billing — Серёга просил не светить её в чатах.",
        v,
    )
    v = pw()
    add(
        "secret",
        "mysql_url_password",
        f"Conexão do legado (PHP) com o MySQL: mysql://erp_user:{v}@mysql-legado.interno:3306/erp — ainda não dá pra trocar a senha sem derrubar o ERP.",
        v,
    )
    v = pw_strong(16)
    add(
        "secret",
        "mongodb_srv_password",
        f"MONGODB_URI=mongodb+srv://api-service:{v}@cluster0.{s(LODIG, 5)}.mongodb.net/orders?retryWrites=true&w=majority",
        v,
    )
    v = pw_strong(22)
    add(
        "secret",
        "mongodb_srv_password",
        f"Atlas 集群连接串（生产）：mongodb+srv://admin:{v}@prod-cluster.{s(LODIG, 5)}.mongodb.net/ 这个账号是 admin 权限，小心用。",
        v,
    )
    v = s(ALNUM, 32)
    add(
        "secret",
        "redis_url_password",
        f"REDIS_URL=rediss://:{v}@cache-prod.{s(LODIG, 6)}.euw1.cache.amazonaws.com:6379/0  # ElastiCache AUTH token",
        v,
    )
    v = pw()
    add(
        "secret",
        "amqp_url_password",
        f"RabbitMQ dla workerów: amqp://orders_worker:{v}@rabbit-01.k8s.local:5672/orders — Tomek mówi, że hasło zmieniamy dopiero po migracji.",
        v,
    )

    body = (
        "MIIEpAIBAAKCAQEA"
        + s(B64, 48)
        + "\\n"
        + "\\n".join(s(B64, 64) for _ in range(5))
        + "\\n"
        + s(B64, 36)
        + "=="
    )
    v = f"-----BEGIN RSA PRIVATE KEY-----\\n{body}\\n-----END RSA PRIVATE KEY-----"
    add(
        "secret",
        "rsa_private_key_pem",
        f'# .env del servicio de firmas (facturación electrónica)\nSIGNING_KEY_PEM="{v}"',
        v,
    )
    body = (
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"
        + s(B64, 14)
        + "\\n"
        + "\\n".join(s(B64, 64) for _ in range(4))
        + "\\n"
        + s(B64, 20)
        + "="
    )
    v = f"-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----"
    add(
        "secret",
        "rsa_private_key_pem",
        f"SAML SP-Schlüssel für das Keycloak-Realm 'intern' (von Matthias übernommen):\nSAML_SP_PRIVATE_KEY={v}",
        v,
    )
    lines = (
        [
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
            "QyNTUxOQAAACA" + s(B64, 57),
        ]
        + [s(B64, 70) for _ in range(2)]
        + [s(B64, 28) + "="]
    )
    v = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(lines)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )
    add(
        "secret",
        "openssh_private_key",
        "deploy@jump-01 用の秘密鍵（GitHub Actions の DEPLOY_KEY にも同じもの）:\n" + v,
        v,
    )
    lines = (
        ["b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABC" + s(B64, 7)]
        + [s(B64, 70) for _ in range(3)]
        + [s(B64, 12) + "=="]
    )
    v = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(lines)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )
    pp = pw()
    add(
        "secret",
        "openssh_private_key",
        f"Chiave per il server di staging (passphrase: {pp}):\n{v}",
        v,
    )
    v = (
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI"
        + s(B64, 55)
        + "\n"
        + s(B64, 64)
        + "\n"
        + s(B64, 48)
        + "==\n-----END EC PRIVATE KEY-----"
    )
    add(
        "secret",
        "ec_private_key",
        "APNs/JWT 서명용 EC 키 (ES256). Apple Developer 에서 한 번만 다운로드 가능해서 일단 여기 보관:\n"
        + v,
        v,
    )
    v = (
        "-----BEGIN PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ"
        + s(B64, 14)
        + "\\n"
        + s(B64, 64)
        + "\\n"
        + s(B64, 64)
        + "\\n"
        + s(B64, 30)
        + "=\\n-----END PRIVATE KEY-----\\n"
    )
    kid = s(HEX, 40)
    add(
        "secret",
        "gcp_service_account_private_key",
        '{\n  "type": "service_account",\n  "project_id": "fatturazione-prod",\n  "private_key_id": "'
        + kid
        + '",\n  "private_key": "'
        + v
        + '",\n  "client_email": "bq-export@fatturazione-prod.iam.gserviceaccount.com"\n}',
        v,
    )
    v = b64b(64)
    add(
        "secret",
        "azure_storage_account_key",
        f"DefaultEndpointsProtocol=https;AccountName=stfotosprodweu;AccountKey={v};EndpointSuffix=core.windows.net\n(blob storage voor de productfoto's, Bram heeft hem uit de portal gekopieerd)",
        v,
    )
    v = b64b(64)
    add(
        "secret",
        "azure_storage_account_key",
        f"Azure Storage key1 của account stlogsvn (dùng cho Function đẩy log): {v}",
        v,
    )

    v = " ".join(rng.sample(BIP39, 12))
    add(
        "secret",
        "bip39_seed_phrase",
        f"Seed phrase van de hot wallet voor de testnet-faucet (ook mainnet-saldo erop!): {v}",
        v,
    )
    v = " ".join(rng.sample(BIP39, 24))
    add(
        "secret",
        "bip39_seed_phrase",
        f"Фраза восстановления кошелька казначейства (24 слова), бумажная копия в сейфе:\n{v}",
        v,
    )
    v = s(B32, 32)
    add(
        "secret",
        "totp_seed",
        f"2FA für den gemeinsamen AWS-Root-Account, damit nicht nur Jonas' Handy den Code hat:\notpauth://totp/AWS:root@firma.de?secret={v}&issuer=AWS",
        v,
    )
    v = s(B32, 16)
    add(
        "secret",
        "totp_seed",
        f"Google Authenticator 設定用のシークレット（共有 admin アカウント）: {v} — 手入力で登録できる。",
        v,
    )
    v = s(LODIG, 32)
    add(
        "secret",
        "session_cookie",
        f"Pra reproduzir o bug logado como admin, usei o cookie do meu browser: sessionid={v} (vale por 2 semanas)",
        v,
    )
    v = "s%3A" + s(URLSAFE, 32) + "." + s(URLSAFE, 43)
    add(
        "secret",
        "session_cookie",
        f"curl -H 'Cookie: connect.sid={v}' https://admin.tienda.mx/api/pedidos  # sesión de Carmen, sigue viva",
        v,
    )

    v = pw()
    add(
        "secret",
        "wifi_password",
        f"WLAN im Büro Köln: SSID 'Dev-5G', Passwort {v}. Gäste bitte ins Gast-Netz.",
        v,
    )
    v = pw()
    add(
        "secret", "wifi_password", f"公司 Wi-Fi（研发专用 RD-Office）密码：{v}，别发到外部群里。", v
    )
    v = pw_strong(14)
    add(
        "secret",
        "server_root_password",
        f"Root-Passwort vom alten Hetzner-Server (db-legacy-01): {v}\nSSH mit Passwort ist da leider noch an.",
        v,
    )
    v = pw()
    add(
        "secret",
        "server_root_password",
        f"Mật khẩu root của VPS build (103.{rng.randint(1, 254)}.{rng.randint(1, 254)}.{rng.randint(1, 254)}) là {v}, nhớ đổi sau khi cài xong key.",
        v,
    )
    v = pw_strong(12)
    add(
        "secret",
        "server_root_password",
        f"sunucuya girmek için: ssh root@10.0.4.21, şifre: {v} (geçici, haftaya kapatıyoruz)",
        v,
    )
    v = pw()
    add(
        "secret",
        "db_password_prose",
        f"La password dell'utente postgres in produzione è {v}, Giulia l'ha cambiata ieri dopo l'audit.",
        v,
    )
    v = pw_strong(16)
    add(
        "secret",
        "db_password_prose",
        f"DB 접속 정보: host=rds-prod.internal user=svc_api password={v} dbname=orders",
        v,
    )
    v = pw()
    add(
        "secret",
        "db_password_prose",
        f"Hasło do bazy raportowej (user: bi_reader) to {v} — Paweł je ustawił, nie udostępniać poza zespołem.",
        v,
    )
    v = pw()
    add(
        "secret",
        "admin_panel_password",
        f"Panel admina WordPressa: login admin / {v}\nhttps://blog.sklep-ogrodowy.pl/wp-admin",
        v,
    )
    v = pw()
    add(
        "secret",
        "admin_panel_password",
        f"Admin panel का login: superadmin@dukaan.in, password {v} — Priya ने reset किया था।",
        v,
    )
    v = " ".join(s(LO, 4) for _ in range(4))
    add(
        "secret",
        "smtp_app_password",
        f"SMTP pour les mails transactionnels : smtp.gmail.com:587, user notif@boutique-lyon.fr, mot de passe d'application « {v} »",
        v,
    )
    v = " ".join(s(LO, 4) for _ in range(4))
    add(
        "secret",
        "smtp_app_password",
        f"EMAIL_HOST_USER=noreply.shop@gmail.com\nEMAIL_HOST_PASSWORD={v}\n# App-Passwort, weil 2FA an ist",
        v,
    )
    v = pw()
    add(
        "secret",
        "android_keystore_password",
        f"# gradle.properties (nur lokal bei Lena, NICHT committen)\nRELEASE_STORE_FILE=release.jks\nRELEASE_STORE_PASSWORD={v}\nRELEASE_KEY_ALIAS=upload",
        v,
    )
    v = pw_strong(18)
    add(
        "secret",
        "ldap_bind_password",
        f'ldap:\n  url: ldaps://ad.corp.example.local:636\n  bind_dn: CN=svc-gitlab,OU=Service,DC=corp\n  password: "{v}"  # AD 서비스 계정',
        v,
    )
    v = pw()
    add(
        "secret",
        "ftp_password",
        f"Il fornitore vuole i file su FTP: ftp.logistica-nord.it, utente acme_upload, pass {v}",
        v,
    )
    v = "-".join(s(LO, 4) for _ in range(4))
    add(
        "secret",
        "apple_app_specific_password",
        f"Für notarytool/altool im CI: Apple-ID release@firma.de, app-spezifisches Passwort {v}",
        v,
    )
    v = pw()
    add(
        "secret",
        "pfx_password",
        f"Certificado A1 da empresa (NF-e): certificado.pfx no bucket, senha do PFX {v}",
        v,
    )

    v = base64.b64encode(f"ops:{pw()}".encode()).decode()
    add(
        "secret",
        "basic_auth_header",
        f"curl -H 'Authorization: Basic {v}' https://grafana.intern.example.de/api/dashboards\n# geht nur mit dem ops-User",
        v,
    )
    v = base64.b64encode(f"partner_api:{pw_strong(16)}".encode()).decode()
    add(
        "secret",
        "basic_auth_header",
        f"Header que o parceiro exige no callback:\nAuthorization: Basic {v}",
        v,
    )
    v = s(URLSAFE, 48)
    add(
        "secret",
        "bearer_token_header",
        f'Запрос к внутреннему API биллинга, который сработал:\ncurl https://billing.int/api/v2/invoices -H "Authorization: Bearer {v}"',
        v,
    )
    v = jwt({"sub": "svc-crawler", "scope": "read:all write:index", "exp": 2050000000}, "RS256")
    add(
        "secret",
        "bearer_token_header",
        f"Postman 里能用的 token（服务账号，不过期）：\nAuthorization: Bearer {v}",
        v,
    )
    v = jwt(
        {
            "iss": "kubernetes/serviceaccount",
            "kubernetes.io/serviceaccount/namespace": "ci",
            "sub": "system:serviceaccount:ci:deployer",
        },
        "RS256",
    )
    add(
        "secret",
        "kubeconfig_token",
        f"users:\n- name: ci-deployer\n  user:\n    token: {v}\n# kubeconfig per il cluster prod-milano",
        v,
    )
    raw = pw_strong(20)
    v = base64.b64encode(raw.encode()).decode()
    add(
        "secret",
        "k8s_secret_base64",
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: payments-db\ntype: Opaque\ndata:\n  password: {v}",
        v,
    )
    v = b64b(32)
    add(
        "secret",
        "wireguard_private_key",
        f"[Interface]\n# VPN para o escritório SP — config do notebook do Thiago\nPrivateKey = {v}\nAddress = 10.8.0.7/32",
        v,
    )
    v = s(HEX, 64)
    add(
        "secret",
        "dingtalk_webhook_token",
        f"告警机器人 webhook（发到运维群）：https://oapi.dingtalk.com/robot/send?access_token={v}",
        v,
    )
    v = uid()
    add(
        "secret",
        "feishu_webhook_token",
        f"飞书群机器人地址，CI 失败时推送：https://open.feishu.cn/open-apis/bot/v2/hook/{v}",
        v,
    )
    v = f"https://hooks.slack.com/services/T{s(UPDIG, 10)}/B{s(UPDIG, 10)}/{s(ALNUM, 24)}"
    add(
        "secret",
        "slack_webhook_url",
        f"Incoming Webhook für #alerts-prod:\n{v}\nWer den hat, kann in den Channel posten.",
        v,
    )
    v = f"https://hooks.slack.com/services/T{s(UPDIG, 10)}/B{s(UPDIG, 10)}/{s(ALNUM, 24)}"
    add("secret", "slack_webhook_url", f"SLACK_WEBHOOK_URL={v}  # デプロイ通知用", v)
    v = f"https://discord.com/api/webhooks/{d(19)}/{s(URLSAFE, 68)}"
    add("secret", "discord_webhook_url", f"Webhook do Discord da guilda de suporte: {v}", v)
    v = s(URLSAFE, 40)
    add(
        "secret",
        "url_access_token_param",
        f"Link de exportación que funciona sin login: https://reportes.miapp.co/export.csv?access_token={v}",
        v,
    )

    # ------------------------------------------------------------------ generic benign
    benign_kinds = [
        (
            "stripe_publishable_key",
            "Stripe",
            "publishable key (pk_live)",
            "STRIPE_PUBLISHABLE_KEY",
            lambda: "pk_live_51" + s(ALNUM, 97),
            3,
        ),
        (
            "mapbox_public_token",
            "Mapbox",
            "public token (pk.)",
            "NEXT_PUBLIC_MAPBOX_TOKEN",
            lambda: "pk." + mapbox_user + "." + s(URLSAFE, 22),
            3,
        ),
        (
            "algolia_search_only_key",
            "Algolia",
            "search-only API key",
            "NEXT_PUBLIC_ALGOLIA_SEARCH_KEY",
            lambda: s(HEX, 32),
            3,
        ),
        (
            "google_oauth_client_id",
            "Google OAuth",
            "client ID",
            "GOOGLE_CLIENT_ID",
            lambda: d(12) + "-" + s(LODIG, 32) + ".apps.googleusercontent.com",
            3,
        ),
        (
            "recaptcha_site_key",
            "reCAPTCHA",
            "site key (public)",
            "RECAPTCHA_SITE_KEY",
            lambda: "6L" + s(URLSAFE, 38),
            3,
        ),
        (
            "vapid_public_key",
            "Web Push",
            "VAPID public key",
            "VAPID_PUBLIC_KEY",
            lambda: "B" + s(URLSAFE, 86),
            2,
        ),
        (
            "twilio_account_sid",
            "Twilio",
            "Account SID",
            "TWILIO_ACCOUNT_SID",
            lambda: "AC" + s(HEX, 32),
            3,
        ),
        (
            "razorpay_key_id",
            "Razorpay",
            "key_id (Checkout, public)",
            "RAZORPAY_KEY_ID",
            lambda: "rzp_live_" + s(ALNUM, 14),
            3,
        ),
        (
            "toss_client_key",
            "Toss Payments",
            "client key (live_ck, browser widget)",
            "TOSS_CLIENT_KEY",
            lambda: "live_ck_" + s(ALNUM, 24),
            2,
        ),
        (
            "mercadopago_public_key",
            "Mercado Pago",
            "public key",
            "MP_PUBLIC_KEY",
            lambda: "APP_USR-" + uid(),
            3,
        ),
        (
            "mollie_profile_id",
            "Mollie",
            "profile ID",
            "MOLLIE_PROFILE_ID",
            lambda: "pfl_" + s(ALNUM, 10),
            2,
        ),
        ("wechat_appid", "微信小程序", "AppID", "WECHAT_APPID", lambda: "wx" + s(HEX, 16), 2),
        ("naver_client_id", "Naver", "Client ID", "NAVER_CLIENT_ID", lambda: s(ALNUM, 20), 2),
        ("line_channel_id", "LINE Login", "channel ID", "LINE_CHANNEL_ID", lambda: d(10), 2),
        (
            "discord_app_public_key",
            "Discord",
            "application PUBLIC KEY (interactions verify)",
            "DISCORD_PUBLIC_KEY",
            lambda: s(HEX, 64),
            3,
        ),
        ("aws_account_id", "AWS", "account ID", "AWS_ACCOUNT_ID", lambda: d(12), 2),
        ("azure_tenant_id", "Azure AD", "tenant ID", "AZURE_TENANT_ID", lambda: uid(), 3),
        (
            "gcp_private_key_id",
            "GCP service account",
            "private_key_id (key fingerprint, not the key)",
            "GCP_KEY_ID",
            lambda: s(HEX, 40),
            2,
        ),
        (
            "kms_key_arn",
            "AWS KMS",
            "key ARN",
            "KMS_KEY_ARN",
            lambda: f"arn:aws:kms:eu-central-1:{d(12)}:key/{uid()}",
            3,
        ),
        ("git_commit_sha", "GitLab CI", "commit SHA", "CI_COMMIT_SHA", lambda: s(HEX, 40), 3),
        ("sha256_checksum", "Release", "SHA-256 checksum", "RELEASE_SHA256", lambda: s(HEX, 64), 3),
        (
            "docker_image_digest",
            "Docker image",
            "digest",
            "IMAGE_DIGEST",
            lambda: "sha256:" + s(HEX, 64),
            3,
        ),
        (
            "npm_integrity_hash",
            "package-lock.json",
            "integrity",
            "LOCK_INTEGRITY",
            lambda: "sha512-" + b64b(64),
            2,
        ),
        ("go_sum_hash", "go.sum", "h1 hash", "GOSUM_H1", lambda: "h1:" + b64b(32), 2),
        ("eth_tx_hash", "Etherscan", "transaction hash", "TX_HASH", lambda: "0x" + s(HEX, 64), 3),
        (
            "eth_address",
            "Ethereum",
            "contract address",
            "CONTRACT_ADDRESS",
            lambda: "0x" + s(HEX, 40),
            2,
        ),
        (
            "btc_address",
            "Bitcoin",
            "deposit address (public)",
            "BTC_DEPOSIT_ADDRESS",
            lambda: "bc1q" + s(BECH, 38),
            2,
        ),
        (
            "ipfs_cid",
            "IPFS",
            "CID",
            "METADATA_CID",
            lambda: "bafybei" + s("abcdefghijklmnopqrstuvwxyz234567", 52),
            2,
        ),
        ("s3_etag", "S3", "ETag", "S3_ETAG", lambda: s(HEX, 32), 2),
        ("request_id_uuid", "API Gateway", "request ID", "X_REQUEST_ID", lambda: uid(), 3),
        ("idempotency_key", "Stripe API", "Idempotency-Key", "IDEMPOTENCY_KEY", lambda: uid(), 2),
        (
            "ssh_public_key",
            "GitHub deploy",
            "public key",
            "DEPLOY_PUBKEY",
            lambda: (
                "ssh-ed25519 "
                + base64.b64encode(
                    b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + rng.randbytes(32)
                ).decode()
                + " deploy@ci"
            ),
            3,
        ),
        (
            "ssh_host_fingerprint",
            "bastion",
            "host key fingerprint",
            "HOST_FP",
            lambda: "SHA256:" + b64b(32, pad=False),
            2,
        ),
        (
            "pgp_fingerprint",
            "release signing",
            "PGP fingerprint",
            "GPG_FINGERPRINT",
            lambda: " ".join(s("0123456789ABCDEF", 4) for _ in range(10)),
            2,
        ),
        (
            "wireguard_public_key",
            "WireGuard peer",
            "PublicKey",
            "WG_PEER_PUBLIC_KEY",
            lambda: b64b(32),
            3,
        ),
        (
            "age_public_key",
            "SOPS/age",
            "recipient (public key)",
            "SOPS_AGE_RECIPIENTS",
            lambda: "age1" + s(BECH, 58),
            3,
        ),
        (
            "nostr_npub",
            "Nostr",
            "npub (public key)",
            "NOSTR_NPUB",
            lambda: "npub1" + s(BECH, 58),
            2,
        ),
        (
            "jwt_header_only",
            "JWT",
            "header segment (decoded: alg/typ/kid)",
            "JWT_HEADER",
            lambda: b64url(
                json.dumps(
                    {"alg": "RS256", "typ": "JWT", "kid": s(HEX, 16)}, separators=(",", ":")
                ).encode()
            ),
            2,
        ),
        ("jwks_kid", "JWKS", "kid", "JWKS_KID", lambda: s(URLSAFE, 43), 2),
        (
            "api_key_hash_fingerprint",
            "api_keys table",
            "sha256 of the key (lookup column)",
            "KEY_SHA256",
            lambda: s(HEX, 64),
            3,
        ),
        (
            "slack_channel_id",
            "Slack",
            "channel ID",
            "SLACK_CHANNEL_ID",
            lambda: "C0" + s(UPDIG, 9),
            2,
        ),
        (
            "stripe_customer_id",
            "Stripe",
            "customer ID",
            "STRIPE_CUSTOMER_ID",
            lambda: "cus_" + s(ALNUM, 14),
            2,
        ),
        (
            "ga_measurement_id",
            "Google Analytics",
            "measurement ID",
            "GA_MEASUREMENT_ID",
            lambda: "G-" + s(UPDIG, 10),
            2,
        ),
        (
            "vnpay_tmn_code",
            "VNPay",
            "vnp_TmnCode (terminal code)",
            "VNP_TMN_CODE",
            lambda: s(UPDIG, 8),
            2,
        ),
        ("p24_merchant_id", "Przelewy24", "merchantId / posId", "P24_MERCHANT_ID", lambda: d(6), 2),
        ("payu_pos_id", "PayU", "POS ID", "PAYU_POS_ID", lambda: d(6), 2),
        (
            "yandex_metrika_counter",
            "Яндекс Метрика",
            "counter ID",
            "YM_COUNTER_ID",
            lambda: d(8),
            2,
        ),
        (
            "webpack_content_hash",
            "webpack build",
            "contenthash of main bundle",
            "BUNDLE_HASH",
            lambda: s(HEX, 20),
            2,
        ),
    ]
    q = 0
    for kind, svc, what, var, gen, n in benign_kinds:
        for _ in range(n):
            lang = LANGS[(q * 3 + 1) % len(LANGS)]
            tpls = BENIGN_TPL[lang]
            tpl = tpls[(q // len(LANGS) + q * 2) % len(tpls)]
            val = gen()
            text = fill(
                tpl,
                svc=svc,
                what=what,
                var=var,
                val=val,
                env=rng.choice(ENVS),
                who=rng.choice(WHO[lang]),
            )
            add("benign", kind, text, val)
            q += 1

    # ------------------------------------------------------------------ hand-written benign
    add(
        "benign",
        "aws_docs_example_key",
        "Beispiel aus der AWS-Doku, nur für die Tests von unserem Config-Parser:\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    )
    add(
        "benign",
        "aws_docs_example_key",
        "テストの fixture には AWS 公式ドキュメントのダミー値（AKIAIOSFODNN7EXAMPLE）を使う。本物のキーは絶対に入れない。",
        "AKIAIOSFODNN7EXAMPLE",
    )
    add(
        "benign",
        "placeholder_env_example",
        "# .env.example — skopiuj do .env i uzupełnij\nSTRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx\nDATABASE_URL=postgres://USER:PASSWORD@HOST:5432/DB",
        "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
    )
    add(
        "benign",
        "placeholder_env_example",
        "README-Abschnitt für neue Leute: OPENAI_API_KEY=<dein-key-hier> in die .env eintragen, den Key bekommt ihr von Jonas persönlich.",
        "<dein-key-hier>",
    )
    add(
        "benign",
        "placeholder_env_example",
        "Mẫu config cho dev mới:\nTELEGRAM_BOT_TOKEN=123456789:AAxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n(token thật xin anh Tuấn, không để trong repo)",
        "123456789:AAxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    )
    add(
        "benign",
        "placeholder_env_example",
        "# config.sample.yaml\ngithub:\n  token: ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX  # 替换成你自己的 PAT",
        "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    )
    add(
        "benign",
        "placeholder_env_example",
        "Dans la doc d'install on met : JWT_SECRET=change-me-in-production. L'appli refuse de démarrer en prod si la valeur n'a pas été changée.",
        "change-me-in-production",
    )
    add(
        "benign",
        "env_var_reference",
        "docker-compose.yml:\n  environment:\n    POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?defina no .env}\n    REDIS_URL: redis://:${REDIS_PASS}@redis:6379",
        "${POSTGRES_PASSWORD:?defina no .env}",
    )
    add(
        "benign",
        "env_var_reference",
        'Конфиг читает ключ из окружения: api_key = os.environ["YOOKASSA_SECRET_KEY"] — в коде значения нет и не должно быть.',
        'os.environ["YOOKASSA_SECRET_KEY"]',
    )
    add(
        "benign",
        "env_var_reference",
        "spring.datasource.password=${DB_PASSWORD}\nspring.datasource.username=${DB_USER}\n# i valori arrivano dal ConfigMap/Secret di k8s",
        "${DB_PASSWORD}",
    )
    add(
        "benign",
        "github_actions_secret_ref",
        "Workflow-Schritt fürs Publishen:\n  env:\n    NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}\nDas Secret liegt in den Repo-Settings, nicht im Code.",
        "${{ secrets.NPM_TOKEN }}",
    )
    add(
        "benign",
        "github_actions_secret_ref",
        "- name: Login ECR\n  with:\n    aws-secret-access-key: ${{ secrets.AWS_SECRET_ACCESS_KEY }}\n# org secret, 민수님만 수정 가능",
        "${{ secrets.AWS_SECRET_ACCESS_KEY }}",
    )
    add(
        "benign",
        "vault_path_ref",
        "Il secret del DB si legge con: vault kv get -field=password secret/data/payments/prod/db — nessun valore in chiaro nei file.",
        "secret/data/payments/prod/db",
    )
    add(
        "benign",
        "vault_path_ref",
        "external-secrets: remoteRef: { key: kv/shop/prod/stripe, property: secret_key } — wartość pobiera operator z Vaulta.",
        "kv/shop/prod/stripe",
    )
    add(
        "benign",
        "onepassword_ref",
        "op run --env-file=.env.tpl -- npm start\n# .env.tpl: DATABASE_PASSWORD=op://Engineering/Postgres Prod/password",
        "op://Engineering/Postgres Prod/password",
    )
    add(
        "benign",
        "onepassword_ref",
        "Het root-wachtwoord van de NAS staat in 1Password, kluis 'Infra', item 'Synology kantoor'. Vraag Sanne om toegang.",
        "",
    )
    add(
        "benign",
        "aws_secretsmanager_ref",
        f"ECS task definition: secrets → valueFrom: arn:aws:secretsmanager:sa-east-1:{d(12)}:secret:prod/api/jwt-{s(ALNUM, 6)} (só o ARN, o valor fica no Secrets Manager)",
        "prod/api/jwt-",
    )
    add(
        "benign",
        "aws_secretsmanager_ref",
        f"aws secretsmanager get-secret-value --secret-id arn:aws:secretsmanager:ap-south-1:{d(12)}:secret:razorpay/live-{s(ALNUM, 6)} — yeh command sirf authorized role se chalega.",
        "razorpay/live-",
    )
    add(
        "benign",
        "k8s_secret_key_ref",
        "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: orders-db-credentials\n      key: password",
        "orders-db-credentials",
    )
    add(
        "benign",
        "helm_template_ref",
        "stringData:\n  apiKey: {{ .Values.sendgrid.apiKey | quote }}\n  # der echte Wert kommt über helm-secrets aus values.prod.enc.yaml",
        "{{ .Values.sendgrid.apiKey | quote }}",
    )
    add(
        "benign",
        "masked_token",
        "Stripe-Dashboard zeigt beim Live-Key nur sk_live_••••••••••••4fQa – den vollständigen Key hat niemand mehr, wir müssen rollen.",
        "sk_live_••••••••••••4fQa",
    )
    add(
        "benign",
        "masked_token",
        "CI 日志里的 token 已经被遮住了：GITHUB_TOKEN=*** ，所以日志可以直接贴到 issue 里。",
        "GITHUB_TOKEN=***",
    )
    add(
        "benign",
        "masked_token",
        "Em OpenAI console aparece só o final da chave: sk-...Xq7T. É essa que o Thiago criou pro chatbot.",
        "sk-...Xq7T",
    )
    add(
        "benign",
        "redacted_value",
        "Log do erro (já sanitizado): POST /v1/charges Authorization: Bearer [REDACTED] → 402 card_declined",
        "Bearer [REDACTED]",
    )
    add(
        "benign",
        "redacted_value",
        "Dump der Config fürs Ticket:\nsmtp:\n  user: noreply@firma.de\n  password: <redacted>\n  host: mail.firma.de",
        "<redacted>",
    )
    add(
        "benign",
        "sops_encrypted_value",
        f"# secrets.enc.yaml (SOPS, age) – kann committet werden\ndb_password: ENC[AES256_GCM,data:{s(B64, 24)}=,iv:{s(B64, 43)}=,tag:{s(B64, 22)}==,type:str]",
        "ENC[AES256_GCM,data:",
    )
    add(
        "benign",
        "sops_encrypted_value",
        f"Giá trị trong file đã mã hoá bằng SOPS, không có key age thì vô dụng: api_key: ENC[AES256_GCM,data:{s(B64, 40)},iv:{s(B64, 43)}=,tag:{s(B64, 22)}==,type:str]",
        "ENC[AES256_GCM,data:",
    )
    vault_blob = "\n".join(s(HEX, 80) for _ in range(3))
    add(
        "benign",
        "ansible_vault_blob",
        f"group_vars/prod/vault.yml (cifrado con ansible-vault):\n$ANSIBLE_VAULT;1.1;AES256\n{vault_blob}",
        "$ANSIBLE_VAULT;1.1;AES256",
    )
    add(
        "benign",
        "sealed_secret_ciphertext",
        f"SealedSecret — można spokojnie trzymać w repo, odszyfrować umie tylko kontroler w klastrze:\nencryptedData:\n  password: AgB{s(B64, 120)}==",
        "encryptedData:",
    )
    add(
        "benign",
        "pem_public_key",
        f"Публичный ключ партнёра для проверки подписи вебхуков:\n-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{s(B64, 20)}\n{s(B64, 64)}\n{s(B64, 30)}IDAQAB\n-----END PUBLIC KEY-----",
        "-----BEGIN PUBLIC KEY-----",
    )
    add(
        "benign",
        "pem_public_key",
        f"JWT 검증용 공개키 (auth 서버에서 /jwks 로도 받을 수 있음):\n-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{s(B64, 28)}\n{s(B64, 24)}==\n-----END PUBLIC KEY-----",
        "-----BEGIN PUBLIC KEY-----",
    )
    add(
        "benign",
        "x509_certificate",
        f"Certificado do servidor (público, vai junto no bundle do app pra pinning):\n-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE{s(B64, 44)}\n{s(B64, 64)}\n{s(B64, 40)}==\n-----END CERTIFICATE-----",
        "-----BEGIN CERTIFICATE-----",
    )
    add(
        "benign",
        "revoked_token_stated",
        "Der GitLab-Token, der im alten Wiki stand, ist seit dem 14.11. widerrufen und gelöscht (Audit-Log geprüft). Alle Jobs laufen mit dem neuen Token aus der CI-Variable.",
        "",
    )
    add(
        "benign",
        "revoked_token_stated",
        "Token lộ trên Slack hôm thứ 2 đã bị revoke ngay trong 10 phút, GitHub xác nhận không có request nào dùng nó. Không cần làm gì thêm.",
        "",
    )
    add(
        "benign",
        "password_policy_talk",
        "Política de contraseñas nueva: mínimo 14 caracteres, sin caducidad forzada, bloqueo tras 10 intentos. La revisa Carmen con seguridad el jueves.",
        "",
    )
    add(
        "benign",
        "password_policy_talk",
        "パスワード要件: 12文字以上、英大小文字・数字・記号のうち3種類以上。bcrypt の cost は 12 に上げる。",
        "",
    )
    add(
        "benign",
        "password_policy_talk",
        "Şifre politikası: en az 12 karakter, son 5 şifre tekrar kullanılamaz, admin hesaplarında 2FA zorunlu.",
        "",
    )
    add(
        "benign",
        "password_reset_procedure",
        "Если клиент забыл пароль от личного кабинета, не сбрасываем вручную — отправляем ссылку через /auth/forgot, она живёт 30 минут.",
        "",
    )
    add(
        "benign",
        "password_reset_procedure",
        "Agar kisi user ka password bhool jaye to admin panel se 'Send reset link' dabao. Password khud set mat karna, aur chat mein kabhi mat bhejna.",
        "",
    )
    add(
        "benign",
        "password_reset_procedure",
        "Per resettare la password di un utente SSO non si passa da noi: va fatto in Entra ID dall'help desk, ticket categoria 'Accessi'.",
        "",
    )
    add(
        "benign",
        "key_rotation_talk",
        "Rotatie-afspraak: API-keys van betaalproviders elk kwartaal vernieuwen, de oude pas intrekken als de nieuwe 24 uur zonder fouten draait.",
        "",
    )
    add(
        "benign",
        "key_rotation_talk",
        "密钥轮换流程：先在 KMS 里创建新版本，服务滚动重启后再禁用旧版本。旧版本保留 30 天以便解密历史数据。",
        "",
    )
    add(
        "benign",
        "key_rotation_talk",
        "API 키 교체 주기는 90일. 만료 7일 전에 Slack #security 채널로 알림이 가도록 설정해 둠.",
        "",
    )
    add(
        "benign",
        "leak_cleanup_note",
        f"Commit {s(HEX, 7)} contenait un token Slack ; on l'a révoqué, puis purgé l'historique avec git filter-repo. Le nouveau token n'est que dans Vault.",
        "",
    )
    add(
        "benign",
        "leak_cleanup_note",
        "Po wycieku klucza do publicznego repo: klucz unieważniony w AWS, sprawdziliśmy CloudTrail — brak podejrzanych wywołań. Zamykam incydent.",
        "",
    )
    add(
        "benign",
        "placeholder_db_url",
        "Formato da connection string pro time de dados: postgresql://<usuario>:<senha>@<host>:5432/<banco> — cada um usa o seu usuário pessoal.",
        "postgresql://<usuario>:<senha>@<host>:5432/<banco>",
    )
    add(
        "benign",
        "placeholder_db_url",
        "Beispiel im Onboarding-Dokument: mongodb+srv://USERNAME:PASSWORD@cluster0.example.mongodb.net/test — echte Zugangsdaten gibt's über den Self-Service.",
        "mongodb+srv://USERNAME:PASSWORD@cluster0.example.mongodb.net/test",
    )
    add(
        "benign",
        "stripe_test_card",
        "Testkarte für den Checkout im Testmodus: 4242 4242 4242 4242, beliebiges Datum in der Zukunft, CVC 123.",
        "4242 4242 4242 4242",
    )
    add(
        "benign",
        "stripe_test_card",
        "3D Secure テスト用カード: 4000 0027 6000 3184（Stripe のテストモード専用）",
        "4000 0027 6000 3184",
    )
    add(
        "benign",
        "music_key",
        "Für das Jingle im Onboarding-Video: Tonart D-Dur, 120 BPM. Der Schlüssel (Violinschlüssel) steht schon im Notenblatt.",
        "",
    )
    add(
        "benign",
        "music_key",
        "Bài hát mẫu cho app karaoke: key gốc là A minor, cho phép user đổi tone ±3.",
        "",
    )
    add(
        "benign",
        "keyboard_key",
        "Shortcut-Bug: auf der AZERTY-Tastatur ist die Taste für „Strg+Z“ woanders, bitte key code statt key name prüfen (event.code === 'KeyW').",
        "event.code === 'KeyW'",
    )
    add(
        "benign",
        "keyboard_key",
        "Клавиша Esc должна закрывать модалку, но в Safari keydown с key='Escape' не всплывает. Добавить обработчик на document.",
        "key='Escape'",
    )
    add(
        "benign",
        "database_primary_key",
        "La tabla pedidos usa como primary key un UUIDv7 (id) en vez del autoincrement; la foreign key cliente_id apunta a clientes.id.",
        "",
    )
    add(
        "benign",
        "database_primary_key",
        "orders 테이블 PK를 bigint에서 ULID로 변경. 예: 01HZX3K8V6Q2M9T4R7N5B1C0DE — 이건 그냥 ID라서 노출돼도 문제 없음.",
        "01HZX3K8V6Q2M9T4R7N5B1C0DE",
    )
    add(
        "benign",
        "llm_token_count",
        "Chatbot-Prompt ist zu lang: 14.200 Tokens Input, das Modell erlaubt 8k. Kontext kürzen oder Zusammenfassung vorschalten.",
        "",
    )
    add(
        "benign",
        "llm_token_count",
        "Chi phí tháng này: 38 triệu token input, 4 triệu token output. Cần cache lại system prompt để giảm số token.",
        "",
    )
    add(
        "benign",
        "llm_token_count",
        "Prompt ko chhota karna hai — har request mein 3000 tokens sirf system prompt ke ja rahe hain. max_tokens=512 rakho.",
        "max_tokens=512",
    )
    add(
        "benign",
        "lexer_token",
        "Il lexer restituisce un token IDENT invece di KEYWORD per 'secret' dentro le stringhe: va gestito lo stato STRING nel tokenizer.",
        "",
    )
    add(
        "benign",
        "lexer_token",
        "パーサのバグ: トークン列 [LPAREN, NUMBER, RPAREN] で EOF トークンが二重に出る。tokenizer.py の peek() を直す。",
        "",
    )
    add(
        "benign",
        "i18n_password_label",
        'i18n: "auth.password.label": "Mot de passe", "auth.password.forgot": "Mot de passe oublié ?" — il manque encore la trad. néerlandaise.',
        '"auth.password.label": "Mot de passe"',
    )
    add(
        "benign",
        "i18n_password_label",
        "messages_tr.properties:\nlogin.password=Şifre\nlogin.password.placeholder=Şifrenizi girin\nlogin.secret.question=Gizli soru",
        "login.password=Şifre",
    )
    add(
        "benign",
        "random_seed_experiment",
        "Experimento de ranking: seed=20240611 para numpy e torch; com essa seed o NDCG@10 sai 0.412 sempre.",
        "seed=20240611",
    )
    add(
        "benign",
        "random_seed_experiment",
        f"Fixture-Daten werden mit Faker(seed={d(6)}) erzeugt, damit die Snapshots stabil bleiben.",
        "Faker(seed=",
    )
    add(
        "benign",
        "secret_other_sense",
        "Il 'segreto' della ricetta della nonna nell'app di cucina è solo il nome della categoria premium: secret_recipes. Niente a che vedere con la sicurezza.",
        "secret_recipes",
    )
    add(
        "benign",
        "secret_other_sense",
        "Geheimtipp vom Team: den Bundle-Analyzer mit --json laufen lassen, dann sieht man die großen Chunks sofort.",
        "",
    )
    add(
        "benign",
        "secret_other_sense",
        "Feature 'Secret Santa' (tặng quà bí mật) cho HR: bảng secret_santa_pairs chỉ lưu id người tặng và người nhận.",
        "secret_santa_pairs",
    )
    add(
        "benign",
        "password_form_field",
        '{"name": "password", "type": "password", "minLength": 12, "autocomplete": "new-password"} — JSON-Schema für das Registrierungsformular.',
        '"type": "password"',
    )
    add(
        "benign",
        "password_form_field",
        '<input type="password" name="haslo" autocomplete="current-password"> — w Safari autouzupełnianie nie działa, trzeba dodać id.',
        'type="password"',
    )
    add(
        "benign",
        "redis_key_name",
        f"Sessions liegen in Redis unter dem Key session:{{user_id}}:{{device}}, TTL 7 Tage. Beispiel-Key: session:{d(6)}:ios",
        "session:{user_id}:{device}",
    )
    add(
        "benign",
        "redis_key_name",
        "Redis 里的 key 命名规范：token_blacklist:{jti}，过期时间与 JWT 的 exp 一致。只存 jti，不存 token 本身。",
        "token_blacklist:{jti}",
    )
    add(
        "benign",
        "cache_key",
        f"Cache key cho trang sản phẩm: product:v3:{s(HEX, 12)}:vi-VN — đổi version khi đổi template.",
        "product:v3:",
    )
    add(
        "benign",
        "license_key_talk",
        "JetBrains-Lizenzen verwaltet jetzt Paweł über das Account-Portal; Lizenzschlüssel werden nicht mehr per Mail verschickt.",
        "",
    )
    add(
        "benign",
        "license_key_talk",
        "Lisans anahtarları artık müşteri paneline otomatik düşüyor, destek ekibi anahtarı kendisi görmüyor, sadece son 4 hanesini görüyor.",
        "",
    )
    add(
        "benign",
        "password_talk_no_value",
        "비밀번호는 슬랙 DM으로 따로 보냈어요. 여기엔 안 적을게요. 받으면 바로 1Password에 넣어주세요.",
        "",
    )
    add(
        "benign",
        "password_talk_no_value",
        "Staging DB ka password maine Priya ko WhatsApp pe nahi, Bitwarden share se bheja hai. Yahan likhna allowed nahi hai.",
        "",
    )
    add(
        "benign",
        "password_talk_no_value",
        "La contraseña del wifi de invitados la cambia recepción cada lunes; está impresa en el cartel de la entrada, no la guardamos en ningún sitio.",
        "",
    )
    add(
        "benign",
        "password_talk_no_value",
        "Wachtwoord van de testaccounts vergeten? Niet opnieuw aanmaken, gewoon de 'reset test users' job in Jenkins draaien.",
        "",
    )
    add(
        "benign",
        "vault_path_ref",
        "Das Router-Passwort steht in KeePass unter Infra/Netzwerk/Fritzbox-Büro, die .kdbx liegt auf dem NAS.",
        "Infra/Netzwerk/Fritzbox-Büro",
    )
    add(
        "benign",
        "vault_path_ref",
        "运维账号的密码统一放在飞书文档《运维账号汇总》（仅 SRE 可见），不要再贴到群里。",
        "",
    )
    add(
        "benign",
        "k8s_secret_key_ref",
        'kubectl create secret generic payments-db --from-literal=password="$PAYMENTS_DB_PASSWORD" -n payments\n(переменная берётся из CI, руками не вводить)',
        '--from-literal=password="$PAYMENTS_DB_PASSWORD"',
    )
    add(
        "benign",
        "terraform_reference",
        'resource "aws_db_instance" "main" {\n  username = "app"\n  password = random_password.db.result\n}\n# il valore sta solo nello state cifrato su S3',
        "random_password.db.result",
    )
    add(
        "benign",
        "terraform_reference",
        "Terraform: master_password = data.aws_secretsmanager_secret_version.db.secret_string — state dosyası şifreli S3 bucket'ta.",
        "data.aws_secretsmanager_secret_version.db.secret_string",
    )
    add(
        "benign",
        "docker_login_stdin",
        'CI-Schritt: echo "$REGISTRY_TOKEN" | docker login ghcr.io -u ci-bot --password-stdin — Token kommt aus den Org-Secrets.',
        "--password-stdin",
    )
    add(
        "benign",
        "placeholder_webhook_url",
        "Formato esperado do webhook (exemplo da doc): https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX",
        "https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX",
    )
    add(
        "benign",
        "placeholder_webhook_url",
        "ドキュメントの例: https://oapi.dingtalk.com/robot/send?access_token=YOUR_ACCESS_TOKEN — 実際のトークンは各チームの Vault にある。",
        "access_token=YOUR_ACCESS_TOKEN",
    )
    add(
        "benign",
        "telegram_chat_id",
        f"Алерты шлём в группу с chat_id -100{d(10)}, бот @billing_alerts_bot. Токен бота — в Vault, тут только id чата.",
        "-100",
    )
    logconf = base64.b64encode(b"[loggers]\nkeys=root,app\nlevel=INFO").decode()
    add(
        "benign",
        "configmap_base64_nonsecret",
        f"ConfigMap (không phải Secret), binaryData chỉ là file cấu hình log:\nbinaryData:\n  logging.conf: {logconf}",
        logconf,
    )
    add(
        "benign",
        "git_lfs_pointer",
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{s(HEX, 64)}\nsize {d(8)}\n# model weights pointer, file thật nằm trên LFS server",
        "oid sha256:",
    )
    add(
        "benign",
        "kms_alias_ref",
        "Ключ шифрования для бэкапов — в AWS KMS, alias/billing-backups-prod. Доступ к расшифровке только у роли backup-restore.",
        "alias/billing-backups-prod",
    )
    add(
        "benign",
        "token_ttl_talk",
        "アクセストークンの有効期限を 1時間 → 15分 に短縮、リフレッシュトークンは 14日 のまま。変更は auth-service の v2.8 から。",
        "",
    )
    add(
        "benign",
        "token_ttl_talk",
        "Token süresini 24 saatten 2 saate indirdik; refresh token rotasyonu açık, çalınan refresh token tekrar kullanılırsa tüm oturumlar düşüyor.",
        "",
    )
    add(
        "benign",
        "api_key_docs_link",
        "Gdzie wygenerować klucz? https://dashboard.stripe.com/apikeys (tylko rola Administrator). Klucza nie wklejamy do Jiry.",
        "https://dashboard.stripe.com/apikeys",
    )
    add(
        "benign",
        "api_key_restriction_talk",
        "La API key de Google Maps del frontend está restringida por HTTP referrer (*.tienda.mx/*) y sólo a Maps JavaScript API; la del backend va aparte en Secret Manager.",
        "",
    )
    add(
        "benign",
        "revoked_token_stated",
        "Le token Sentry collé par erreur dans #general (sntryu_…9c1) a été révoqué dans la minute ; l'audit log ne montre aucune utilisation.",
        "sntryu_…9c1",
    )
    add(
        "benign",
        "password_hash_algorithm_talk",
        "Migração de hash de senha: MD5 legado → Argon2id (m=64MB, t=3, p=4). Quem logar é re-hasheado automaticamente.",
        "",
    )

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
