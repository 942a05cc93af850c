"""The words a password, a typed code, a code that opens something and an app password go by,
in the languages the blind corpora's writers used: what core/secret_gate.py wakes on and what
core/secret_codes.py and core/secret_values.py read before a value. A leaf (the prompt hook's
pre-check imports it). Pure: standard library only.
"""

from __future__ import annotations

import re

# A password's name in more of the languages teams write than the rules spell out one by one
# (Swahili, Korean shorthand, Indonesian and Malay, Catalan, the South Slavic and Baltic
# languages, Afrikaans, Icelandic, Thai, Hebrew, Arabic, Hindi, Greek, Bulgarian, Ukrainian):
# written down ahead of any corpus that shows them, since each round's writers pick new ones.
PASSWORD_NAMES = (
    *("nenosiri", "nywila", "neno la siri", "비번", "패스워드", "암호", "kata sandi"),
    *("kata laluan",),
    *("contrasenya", "lozinka", "lozinku", "geslo", "parool", "salasõna", "slaptažodis"),
    *("wagwoord", "lykilorð", "รหัสผ่าน", "סיסמה", "סיסמא", "كلمة المرور", "كلمة السر"),
    *("كلمة مرور", "पासवर्ड", "συνθηματικό", "парола", "гасло", "パスフレーズ", "sandi"),
    # Hungarian's inflections, Greek, Hausa, Yoruba, Igbo, Persian, Urdu, Bengali, Tamil, Serbian
    # and Croatian, Albanian, Azerbaijani, Basque, Galician, Irish, Zulu, Khmer, Lao, Georgian,
    # Armenian, Mongolian, Amharic
    *("jelszava", "jelszavát", "jelszót", "κωδικός", "κωδικό", "kalmar sirri", "kalmar wucewa"),
    *("ọrọ igbaniwọle", "okwuntughe", "رمز عبور", "گذرواژه", "پاس ورڈ", "পাসওয়ার্ড"),
    *("கடவுச்சொல்", "šifra", "fjalëkalim", "şifrə", "pasahitza", "contrasinal", "pasfhocal"),
    *("iphasiwedi", "ពាក្យសម្ងាត់", "ລະຫັດຜ່ານ", "პაროლი", "գաղտնաբառ", "нууц үг", "የይለፍ ቃል"),
    # Hebrew's construct form, Persian, Afrikaans, Malay, Ukrainian
    *(
        "סיסמת",
        "הסיסמה",
        "הסיסמא",
        "رمز",
        "wagfrase",
        "kata rahsia",
        "rahsia",
        "кодове слово",
        "מילת הקוד",
        "كلمة سر",
    ),
    # a passphrase in Norwegian, Danish and Swedish, bare and definite (`Krypteringsfrasen`)
    *("passfrase", "passfrasen", "passordfrase", "krypteringsfrase", "krypteringsfrasen"),
    *("adgangsfrase", "lösenfras", "lösenfrasen", "密碼"),
)
# A key's or a secret's name in those languages (`Llave de Datadog`, `ufunguo wa API`).
KEY_NAMES = (
    *("llave", "ufunguo", "clau", "ključ", "kľúč", "nøkkel", "nøgle", "nyckel", "avain"),
    *("kulcs", "cheie", "κλειδί", "مفتاح", "מפתח", "कुंजी", "tajný klíč", "tajny klucz"),
    *("klíč", "siri ya", "비밀 키", "비밀키", "kunci", "anahtarı", "chave secreta", "คีย์", "võti"),
    *("โทเคน", "โทเค็น", "รหัส", "maɓallin sirri", "mabuɗin sirri", "maɓalli", "mabuɗi"),
    *("bọtini", "کلید", "চাবি", "susi", "çelës", "açar", "clé secrète", "kulcsa", "kulcsot"),
    *("سکرت", "توکن", "סוד", "спільнота snmp", "קהילת snmp", "segredo", "keepass"),
    # a secret in Norwegian, Danish and Swedish (`API-klient ... hemmelighet: ...`)
    *("hemmelighet", "hemmeligheten", "hemmelighed", "hemmeligheden", "hemlighet", "密鑰"),
)
# Both, as one alternation for a pattern (core/secret_patterns.py PROSE), longest first.
MORE_NAMES = "|".join(
    re.escape(name) for name in sorted({*PASSWORD_NAMES, *KEY_NAMES}, key=len, reverse=True)
)
# A compound that ends in a password's or a key's name (German `Zugangsschlüssel`, Finnish
# `tuotantoavain`, Dutch `beheerwachtwoord`, Estonian `juurparool`): the name's last part.
COMPOUND_NAMES = (
    # not a key of data or one public (`Idempotenzschlüssel`, `productsleutel`)
    r"(?!(?:idempoten|produ[ck]t|cache|sortier|partition|prim|fremd|öffentlich|offentlig|julkinen"
    r"|avalik|openbare?|public|hash|such|lizenz|licen[cs]|lisenssi|sivusto|site|seiten|webbplats)\w*)"
    r"[^\W\d_]{2,20}(?:passwort|kennwort|schlüssel|schluessel|wachtwoord|sleutel|lösenord|nyckel"
    r"|passord|nøgle|nøkkel|salasana|avain|parool|võti|kulcs|jelszó)"
)
# The words a password's name holds (`wachtwoord`, `DB_PASSWD`), and the names that are one
# whole (`pw`, French `mdp`, Dutch `ww`): core/secret_values.py `assigned_kind`.
PASSWORD_WORDS = (
    *("pass", "pwd", "wort", "contrase", "senha", "wachtwoord", "パスワード", "密码", "hasło"),
    *("mật khẩu", "парол", "şifre", "parola", "비밀번호", "community", "answer", "memorable"),
    *("wifi", "wi-fi", "cyfrinair", "heslo", "jelszó", "lösenord", "passord", "salasana"),
    *("kodeord", "adgangskode", "comunidad", "communauté", "comunità"),
    *PASSWORD_NAMES,
)
PASSWORD_WHOLE = ("pw", "mdp", "ww")
# The names digits a person types stand after: a password's (in its abbreviations too: `mdp`,
# `ww`), a PUK's, a safe's, a terminal's supervisor or merchant code.
CODE_NAME = (
    r"password|passwort|passwd|pwd|pw|senha|contraseña|mot de passe|mdp|ww|wachtwoord|hasło"
    r"|cyfrinair|puk2?|safe|tresor|kombination|combinaci[oó]n|combinação|alarmcode|türcode"
    r"|combo|kombináció|συνδυασμός|combinazione|combinaison|kombinacja|kombinace"
    r"|torcode|beheerderscode|(?:supervisor|merchant menu|manager|admin) code|code superviseur"
    r"|c[oó]digo d[aeo] (?:porta|puerta|alarme?|port[ãa]o|acceso|acesso|seguridad)"
    # a safe's name and a password's in more languages (`caja fuerte ...: 68-97-76`,
    # `TVU One web UI şifre: 81413587`), a combination's short name (`Kombi 786641`)
    r"|caja fuerte|cassaforte|coffre-fort|cofre|sejf|kasa|kassaskåp|pengeskab|kombi"
    r"|şifre\w*|heslo|lösenord|passord|salasana|jelszó|parola|szyfr\w*"
)
# An app password's four groups of four letters (Google's, Microsoft's, Apple's).
APP_GROUPS = r"(?:[a-z]{4}(?: [a-z]{4}){3}|[a-z]{4}(?:-[a-z]{4}){3})"  # Apple's: with hyphens
# A key box in more languages: a code's name and what it opens both (`Schlüsselbox ... Code:`).
KEY_BOXES = (
    r"cofre de chaves|caixa de chaves|schlüsselbox|schlüsseltresor|nøgleboks|nøkkelskap"
    r"|skrytka na klucze|portachiavi"
)
# A code's name, and what a code opens: `Gate code ... 60640#`, `Kod do bramy: 8204`,
# `Código de la alarma: 8399`, `Code porte: 19036`, `opiatenkast code: 954318`, Welsh `cod`.
CODE_WORD = (
    r"codes?|kod|cod|k[óo]d|kode|koodi|c[oó]digo|codice|\w+code|combination|combinaci[oó]n"
    r"|combina[çc][ãa]o|combinazione|kombination|combo|keypad|digicode|pin|key ?safe|lock ?box"
    r"|mã|رمز|कोड|κωδικός|boîte à clés|boite a cles|caja de llaves|sleutelkluis\w*|nyckelskåp"
    r"|nøkkelboks|avainsäil\w*|kombi|szyfr\w*|"
    + KEY_BOXES
    # and in more languages: Turkish, Latvian, Lithuanian, Slovenian, Swahili (`namba ya siri`:
    # a secret number), Russian, Hebrew, Arabic, Thai, Korean, Japanese (a particle may follow)
    + r"|kodu|kods|kodas|koda|msimbo|namba ya siri|nambari ya siri|код\w*|קוד|كود"
    # a screen's lock (`näytön lukitus`, `ekraanilukk`), a PIN numbered (`PIN1`)
    r"|lukitus|ekraanilukk"
    r"|screen ?lock|lock ?screen|bildschirmsperre|deblocare|unlock code|pin[12]"
    # a password's name before what it opens (`senha do portão: 1357*`)
    r"|senha|contrase[ñn]a|clave|password|passwort|wachtwoord|hasło|heslo|mot de passe|nenosiri"
)
# A PIN's or an access code's name in the languages teams write (core/secret_patterns.py PIN):
# `code d'accès DTMF 813661`, `namba ya siri ya mlango: 1984*`, `출입 코드: 13708`.
_PIN_NAMES = (
    *("code d'accès", "code d'acces", "código de acceso", "código de acesso", "codice di accesso"),
    *("zugangscode", "toegangscode", "kod dostępu", "přístupový kód", "prístupový kód"),
    *("åtkomstkod", "tilgangskode", "pääsykoodi", "hozzáférési kód", "cod de acces"),
    *("erişim kodu", "код доступа", "kode akses", "mã truy cập", "namba ya siri"),
    *("nambari ya siri", "출입 코드", "출입코드", "暗証番号", "访问码", "קוד גישה", "رمز الدخول"),
    *("code secret", "código secreto", "codice segreto", "geheimcode", "geheime code"),
    *("tajný kód", "kod tajny", "code de déverrouillage", "código de desbloqueo"),
    *("código de desbloqueio", "codice di sblocco", "entsperrcode", "ontgrendelcode"),
    *("kod odblokowania", "unlock code", "unlock pin", "mesterkód", "kényszerkód", "lambar sirri"),
    *("lambar buɗe", "κωδικός πρόσβασης", "код доступу", "kod pristupa", "mã mở khóa"),
    # a PIN in Arabic; a code that pays out money (a cash transfer's, a voucher's withdrawal)
    *("رقم التعريف الشخصي", "الرقم السري", "cash-out code", "cashout code", "withdrawal code"),
    *("code de retrait", "código de retiro", "código de saque", "codice di prelievo"),
    *("abhebecode", "msimbo wa kutoa", "رمز صرف", "رمز السحب", "kode penarikan", "mã rút tiền"),
    # an alarm panel's codes by their role: an engineer's or an installer's, a user's, a
    # master's, an operator's, duress (in German, Dutch, French, Spanish, Italian, Portuguese)
    *("eng code", "errichtercode", "installateurscode", "installercode", "code installateur"),
    *("código de instalador", "codice installatore", "código do instalador", "technikercode"),
    *("benutzercode", "gebruikerscode", "code utilisateur", "código de usuario", "codice utente"),
    *("mastercode", "hauptcode", "code maître", "code maitre", "código maestro", "codice master"),
    *("bedienercode", "code opérateur", "código de operador", "codice operatore", "managercode"),
    *("bedrohungscode", "überfallcode", "code sous contrainte", "code de contrainte", "dwangcode"),
    *("código de coacción", "codice coercizione", "código de coação", "duress pin"),
)
PIN_NAMES = "|".join(re.escape(name) for name in _PIN_NAMES)
# Where the PIN rule is tried: a literal each name begins with.
PIN_LITERALS: tuple[str, ...] = (
    "pin",
    "nip",
    "code",
    "combination",
    "combo",
    "passcode",
    "host key",
    "lockbox",
)
PIN_LITERALS += (
    "voicemail",
    "code d",
    "código",
    "codice",
    "zugangscode",
    "toegangscode",
    "kod ",
    "kód",
)
PIN_LITERALS += ("přístup", "prístup", "åtkomstkod", "tilgangskode", "pääsykoodi")
PIN_LITERALS += ("hozzáférési", "cod de", "erişim", "код", "kode akses", "mã truy", "namba")
PIN_LITERALS += ("nambari", "출입", "暗証", "访问码", "קוד", "رمز", "code s", "código s")
PIN_LITERALS += ("codice s", "geheim", "tajný", "kod tajny", "déverrouillage", "desbloque")
PIN_LITERALS += ("sblocco", "entsperr", "ontgrendel", "odblokowania", "unlock", "mesterkód")
PIN_LITERALS += ("kényszerkód", "lambar", "κωδικός", "kod pristupa", "mã mở")
PIN_LITERALS += ("رقم", "cash-out", "cashout", "withdrawal", "abhebe", "msimbo", "kode p", "mã r")
PIN_LITERALS += ("eng code", "errichter", "installateur", "installer", "installatore", "techniker")
PIN_LITERALS += ("benutzercode", "gebruikerscode", "utilisateur", "usuario", "utente", "mastercode")
PIN_LITERALS += ("hauptcode", "maître", "maitre", "maestro", "bediener", "opérateur", "operador")
PIN_LITERALS += ("operatore", "managercode", "bedrohung", "überfall", "contrainte", "dwang")
PIN_LITERALS += ("coacción", "coercizione", "coação", "duress")
# Recovery or backup codes, in the languages teams write (core/secret_patterns.py
# RECOVERY_CODES), and a literal each begins with.
RECOVERY_NAMES = (
    r"wiederherstellungscodes?|backup-codes?|kody (?:odzyskiwania|zapasowe)|kod zapasowy"
    r"|c[oó]digos? de (?:recuperaci[oó]n|respaldo|recupera[çc][ãa]o|backup)"
    r"|codes? de (?:secours|r[ée]cup[ée]ration)|codici di (?:backup|recupero)|herstelcodes?"
    r"|back-?upcodes?|záložní kód[yu]?|kódy pro obnovení|återställningskoder|gendannelseskoder"
    r"|palautuskoodit|kurtarma kodlar[ıi]|коды восстановления|резервные коды|kode cadangan"
    r"|mã (?:dự phòng|khôi phục)|복구 ?코드|백업 ?코드|リカバリーコード|バックアップコード"
    r"|恢复代码|备用码"
    r"|yedek kod\w*|kurtarma kod\w*|varakood\w*|palautuskood\w*|taastekood\w*|varukood\w*"
    r"|coduri de (?:rezervă|recuperare)|codurile de (?:rezervă|recuperare)"
    r"|tartalék ?kód\w*|helyreállítási kód\w*|κωδικοί ανάκτησης|εφεδρικοί κωδικοί"
    r"|lambobin dawo\w*|کدهای بازیابی|коди відновлення|резервні коди|rezervni kodovi"
    r"|kodovi za oporavak|záložné kódy|kode pemulihan|kod sandaran|kod pemulihan|herstelkodes"
    r"|קודי שחזור|کدهای پشتیبان|gjenopprettingskod\w*|endurheimtarkóð\w*|varakóð\w*"
)
RECOVERY_LITERALS: tuple[str, ...] = (
    "recovery code",
    "backup code",
    "wiederherstellungscode",
    "backup-code",
    "kody ",
    "kod zapas",
    "código",
)
RECOVERY_LITERALS += ("codigo", "codes de", "code de", "codici di", "herstelcode", "backupcode")
RECOVERY_LITERALS += ("back-upcode", "záložní", "kódy pro", "återställningskod")
RECOVERY_LITERALS += ("gendannelseskod", "palautuskood", "kurtarma", "коды", "резервные")
RECOVERY_LITERALS += ("kode cadangan", "mã dự", "mã khôi", "복구", "백업", "リカバリー")
RECOVERY_LITERALS += ("バックアップ", "恢复代码", "备用码", "yedek kod", "varakood", "taastekood")
RECOVERY_LITERALS += ("varukood", "coduri de", "codurile de", "tartalék", "helyreállítási")
RECOVERY_LITERALS += ("κωδικοί", "εφεδρικοί", "lambobin", "کدهای", "коди", "резервні", "rezervni")
RECOVERY_LITERALS += ("kodovi", "záložné", "kode pemulihan", "kod sandaran", "kod pemulihan")
RECOVERY_LITERALS += ("herstelkodes", "קודי", "کدهای", "gjenoppretting", "endurheimt", "varakóð")
# The same words in scripts written without spaces between words (Thai, Japanese, Chinese), with
# particles joined to them (Korean), or inflected and compounded (Estonian and Finnish `kood`,
# `ovikoodi`, `hälytyskoodi`; Romanian `codul`; Turkish `şifresi`): found anywhere.
CODE_WORD_UNSPACED = (
    r"รหัส|코드|비밀번호|암호|暗証番号|コード|密码|密碼|ปลดล็อก|kood|codul|şifre|sifre|kód|κωδικ|کد"
    r"|কোড|lambar|šifr|קוד|کد|kodu|kode|kóð"  # Icelandic `Hurðarkóði`
    r"|暗証|도어락|번호키|비번"  # Japanese's PIN, a Korean door lock's number, Korean's `pw`
)
OPENS_UNSPACED = (
    r"ประตู|สัญญาณกันขโมย|ห้องเซิร์ฟเวอร์|แท็บเล็ต|출입|도어|알람|경보|금고|현관|서버실|전산실|해제"
    r"|ドア|扉|警報|金庫|サーバー室|門|门|警报|保险柜|机房|解除|撤防|דלת|אזעק|כספת|שער"
    r"|房卡|门卡|門卡|保險箱|機房|冷蔵室|冷凍室|저온실|냉동실|냉장실|通報|アラーム|コールドルーム"
    r"|冷凍庫|게이트|주차장|باب|إنذار"  # a hotel's room keycards, in traditional Chinese too
)
# Disarming an alarm, in the languages teams write: the code that does it opens something.
DISARM = (
    r"(?:disarm|unset|desarmar|desactivar|désarmer|désactiver|disinserire|disattivare|"
    r"unscharf|deaktivieren|uitschakelen|rozbroi\w*|rozbroj\w*|uzbroj\w*|odjistit|deaktivovat"
    r"|avlarma|frakoble"
    r")"
)
# What a code is typed with, right before it (`toets 92850`, `digitare 666145`).
TYPE_WORD = (
    r"type|enter|dial|toets|tippen|digitare|digite|teclear|marcar|wpisz|दबाएं"
    r"|press|punch in|key in|eingeben|saisir|tapez|composez|introduce|ingresa|digitar"
    r"|inserisci|intoetsen|zadejte|ange|indtast|tast|syötä|gir|введите|nhập|masukkan|weka"
    r"|ingiza|bonyeza|apăsați|apasati|tastați|tastati|näppäile|sisesta|vajuta|入力|输入|입력"
    # disarming an alarm is typing its code (`disarm with 0625`, `desarmar con 4821`)
    r"|" + DISARM + r"(?:\s+(?:with|using|con|avec|mit|com|met|z|ze|s|kwa|by))?"
)
OPENS = (
    r"gates?|doors?|keypad|alarms?|lock ?box|key ?(?:safe|box)|padlock|garage|cabinet|locker"
    r"|(?:the|a|office|wall|floor) safe|safe (?:code|combination|combo)"  # not `type-safe`
    r"|(?:front|back|side|main|service|staff|rear) (?:entry|entrance)|entry (?:door|gate)"
    r"|port[oó]n|puerta|alarma|caja|candado|porta|port[ãa]o"
    r"|alarme|cadeado|bram\w*|drzwi|alarm\w*|sejf\w*|skrytk\w*|k[łl][óo]dk\w*|porte|portail"
    r"|cadenas|coffre|armoire|casier|digicode|allarme|cancello|cassaforte|lucchetto|t[üu]r|tor"
    r"|tresor|schl[üu]sselkasten|\w*deur|poort|kluis|\w*kast|larwm|drws|terminal|tpe"
    r"|pinautomaat|supervisor|superviseur|merchant menu|beheerder\w*|panel\w*|pannello"
    r"|installer|\w*eingang|vchod\w*|dve[řr]e|br[áa]n[ay]|n[øo]gle\w*|sleutel\w*|chiavi"
    r"|cassetta|ingresso|keysafe|báo động|الإنذار|अलार्म|συναγερμ\w*|porta d'ingresso"
    # and in more languages: Czech, Swedish, Danish, Norwegian, Finnish, Hungarian, Romanian,
    # Turkish, Russian, Indonesian, Vietnamese, Swahili, Hebrew, Arabic, Hindi, Thai, Korean,
    # Japanese, Chinese; an alarm's disarming
    r"|ústředn\w*|dörr\w*|larm\w*|kassaskåp|d[øo]r\w*|pengeskab|ovi|portti|hälytys\w*"
    r"|kassakaappi|ajtó|kapu|riasztó|széf|ușă|usa|poart[ăa]|alarm[ăa]|seif|kap[ıi]\w*|kasa"
    r"|двер\w*|ворот\w*|сигнализац\w*|сейф\w*|домофон\w*|pintu|gerbang|brankas|cửa|cổng"
    r"|mlango|lango|kengele|דלת|שער|אזעקה|כספת|الباب|البوابة|الخزنة|दरवाज़ा|दरवाजा|गेट"
    r"|तिजोरी|ประตู|สัญญาณกันขโมย|출입\w*|도어\w*|알람\w*|경보\w*|금고\w*|현관\w*|ドア|扉"
    r"|" + DISARM + r"|server ?room|comms room|cage|server ?ruimte|serverraum|serverrum"
    r"|salle serveur|sala (?:de )?servidores|sala server|serwerowni\w*|serverovn\w*"
    # a door's code in one word (`Deurcode`, `ovikoodi`, `uksekood`), a key safe, an intercom,
    # a phone's or a tablet's lock, in Finnish, Estonian, Romanian
    r"|(?:deur|tür|tor|door|gate|ovi|ukse|uks|port)(?:code|koodi|kood|kod)\w*|avainsäil\w*"
    r"|avainkaap\w*|ulko-ove\w*|võtme\w*|valvesüsteem\w*|värav\w*|cutia cu chei|cutie cu chei"
    r"|interfon\w*|intercom|summeri|fonolukko|puhelin\w*|telefonului|telefoni|tablet\w*|näytön"
    # Hungarian, Greek, Tagalog, Hausa, Serbian and Croatian, Ukrainian, Bengali, Tamil, Albanian
    r"|trezor\w*|ajtó\w*|πόρτα\w*|πόρτας|θύρα\w*|χρηματοκιβώτι\w*|pinto|pintuan|tarangkahan"
    r"|[kƙ]ofa|wayar|vrata|kapij\w*|сигналізац\w*|দরজা|கதவு|dera|derës"
    # Hebrew (a prefix may join it), Persian, Ukrainian, Malay, Afrikaans
    r"|قفل|در ورودی|охорон\w*|penggera|pintu|kelder|hek|deur"
    # a lock, a building, a keypad, a till, a badge reader, an intercom, in more languages
    r"|serrure\w*|cerradura\w*|fechadura\w*|serratur\w*|schloss\w*|zamk\w*|locks?|keypads"
    r"|immeuble|edificio|gebäude\w*|building|caisse|badgeuse|tastierin\w*|\w*tresor\w*|\w*tür"
    r"|gegensprechanlage|\w*schleuse|vestiaires?|boîte à clés|boite a cles"
    # a turnstile, an explosives store, a bonded store, a main door, a voicemail box
    r"|tripode|portiques?|drehkreuz\w*|turnstiles?|tornell\w*|varch\w*|torniquete\w*|catraca\w*"
    r"|polvor[ií]n|paiol|dépôt d'explosifs|explosi\w*|bond store|portone|portón|server ?rom\w*"
    r"|caixa postal|buzón de voz|boîte vocale|mobilbox|casella vocale|mailbox"
    r"|\w*schrank|till|hmi|ihm|zentrale|centrale|centralita"
    # a hotel's keycard encoder (its lock systems), a store of chemicals or feed, Icelandic
    r"|vingcard|saflok|onity|key ?card encoder|(?:chemicals?|feed|poison|paint|fuel|drug"
    r"|medicine|ammunition|tool) ?(?:store|room|shed)s?|storeroom|stockroom|hurð\w*|hlið\w*"
    r"|geymsl\w*"
    # a drugs or a medicines cabinet (Italian, Polish), a cold room or a freezer room
    r"|armadi\w*|szaf\w*|cold ?rooms?|freezer ?rooms?|walk-in (?:freezer|cooler)s?|kühlraum\w*"
    r"|chambre froide|cámara fría|cuarto frío|cella frigorifera|chłodni\w*"
    # a safe, a voicemail box, a PLC, a freezer's alarm and its dialer, in more languages
    r"|cofre\w*|caja fuerte|messagerie|segreteria|poczta głosowa|sesli mesaj|hlasov\w* schránk\w*"
    r"|plc|freezers?|(?:auto-?)?dialers?|dial-?out|brán\w*|" + KEY_BOXES
)
# What says a key is public, in the languages teams write (core/secret_public.py PUBLIC_NAME
# and PUBLIC_AFTER): `Werf-sleutel vir reCAPTCHA (publiek)`, `kunci publik`, a site key's name
# (reCAPTCHA's, Turnstile's: public by design), and a secret denied (`(bukan secret)`).
PUBLIC_WORDS = (
    r"publiek|publik|julkinen|offentlig|avalik|δημόσι\w*|ציבורי|nyilvános|publiczn\w*"
    r"|veřejn\w*|verejn\w*|javn[iaeo]\w*|herkese açık|công khai|สาธารณะ|सार्वजनिक|عمومی|ya umma"
    # a captcha's site key (`Clave de sitio Onity` is a lock system's code)
    r"|(?:kunci tapak|kunci situs|werf-?sleutel|site-?sleutel|websitesleutel|websiteschlüssel"
    r"|clave (?:del |de )?sitio|chave do site|clé (?:du |de )?site|chiave del sito"
    r"|klucz witryny|klíč webu|ключ сайта|サイトキー|站点密钥|사이트 키|site anahtarı)"
    r"(?=[^\n]{0,30}(?:captcha|turnstile))"
)
# A word that denies what follows (`(bukan secret)`, `nicht geheim`, `pas un secret`), right
# before a secret's name: the value is none (core/secret_context.py named_value).
NEGATIONS = (
    r"no|not(?: an?| the)?|without(?: an?)?|bukan|tidak|nicht|kein\w*|pas(?: une?)?|não é"
    r"|no es|non è|non|niet|geen|nie|не|δεν είναι|לא|ليس|sio|không phải|ei|inte|ikke|nem"
)
NOT_SECRET = (
    r"(?<!\w)(?:" + NEGATIONS + r")[ \t]+(?:secret\w*|geheim\w*|secreto|secreta|segredo|segreto"
    r"|rahasia|rahsia|tajn\w*|секрет\w*|μυστικ\w*|סוד\w*|siri|bí mật|salainen|hemlig|hemmelig"
    r"|titkos)"
)
# An account's or a login's name before `user / password` (core/secret_patterns.py USER_PASS):
# `Conta compartilhada da loja: caixa01 / ...`, `Administrator / ...`.
ACCOUNT_NAMES = (
    r"administrator|conta|cuenta|compte|konto|accesso|acesso|acceso|accès|zugang|usuário"
    r"|usuario|utilisateur|benutzer|gebruiker|utente|käyttäjä\w*|användare|bruker|bruger"
    r"|logowanie|přihlášení|felhasználó\w*|fiók\w*|hesap|akun|akaun|pengguna|tài khoản"
    r"|аккаунт|учётн\w*|учетн\w*|обліков\w*|λογαριασμ\w*|חשבון|حساب|계정|アカウント|账号|账户|帳號"
    r"|帳戶|\w+bruker|\w+bruger|\w+benutzer|\w+användare"  # `virksomhetsbruker`
)
# Four digits in a row, found fast (`\d{4}` is twice as slow): before any code is looked for.
FOUR_DIGITS = re.compile(r"[0-9][0-9][0-9][0-9]")
_MAIL_WORDS = (
    "gmail",
    "google",
    "app p",
    "app-p",
    "smtp",
    "imap",
    "outlook",
    "mailbox",
    "workspace",
)
_ADDRESSED = re.compile(r"\w@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?![\w-])")


def names_mail(lowered: str) -> bool:
    """Whether a text (lowercase) names a mail account: a provider, an app password, an
    address."""
    if any(word in lowered for word in _MAIL_WORDS):
        return True
    return "@" in lowered and _ADDRESSED.search(lowered) is not None


def typed_code(digits: str) -> bool:
    """Whether digits could be a code someone set: not one digit repeated (`1111`) nor a run
    up or down (`1234`, `9876`); two digits are enough (`7711`, `1221`)."""
    return len(set(digits)) >= 2 and digits not in "0123456789" and digits not in "9876543210"
